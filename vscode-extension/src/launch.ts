// The exact command lines that start Python: the pre-start check and the server.
//
// Security: opening a folder must never run code from it. `python -m x` and `python -c ...`
// put the working directory first on sys.path, so a `json.py` or `z3.py` in a cloned repository
// would be imported. Hence: `-I` (isolated mode: no working directory, no PYTHONPATH, no user
// site on sys.path), a script run by absolute path from the extension's own folder (so
// sys.path[0] is that folder), and the extension's folder as the working directory, never the
// workspace. No `vscode` import here: tests/test_launch_security.py runs these very functions.
import * as fs from 'node:fs';
import * as path from 'node:path';

export type ImportStrategy = 'useBundled' | 'fromEnvironment';

export interface LaunchSpec {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

export function launcherScript(extensionRoot: string): string {
  return path.join(extensionRoot, 'bundled', 'tool', 'launch.py');
}

export function bundledLibs(extensionRoot: string): string {
  return path.join(extensionRoot, 'bundled', 'libs');
}

/** True when the .vsix ships the server and its dependencies (`bundled/libs`). */
export function hasBundledLibs(extensionRoot: string): boolean {
  return fs.existsSync(path.join(bundledLibs(extensionRoot), 'shapesense'));
}

/** Whether the server comes from `bundled/libs` (the default, when present) or the interpreter. */
export function usesBundled(strategy: ImportStrategy, extensionRoot: string): boolean {
  return strategy !== 'fromEnvironment' && hasBundledLibs(extensionRoot);
}

/** The environment for Python: the editor's own, minus anything that widens sys.path. */
export function pythonEnv(base: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  // -I ignores PYTHON* variables already; these also cover a wrapper command (`conda run`,
  // `pyenv exec`) that re-executes a Python without our flags. An empty value counts as unset
  // (and vscode-languageclient merges env into process.env, so deleting would not remove it).
  env.PYTHONPATH = '';
  env.PYTHONSTARTUP = '';
  env.PYTHONSAFEPATH = '1';
  env.PYTHONUNBUFFERED = '1';
  env.PYTHONIOENCODING = 'utf-8';
  return env;
}

function spec(
  python: string[],
  extensionRoot: string,
  bundled: boolean,
  tail: string[],
  base: NodeJS.ProcessEnv,
): LaunchSpec {
  const [command, ...pre] = python;
  return {
    command,
    args: [...pre, '-I', '-u', launcherScript(extensionRoot), ...(bundled ? ['--bundled'] : []), ...tail],
    cwd: extensionRoot,
    env: pythonEnv(base),
  };
}

/** The pre-start check: prints one `SHAPESENSE_CHECK {json}` line. */
export function checkLaunch(
  python: string[],
  extensionRoot: string,
  bundled: boolean,
  base: NodeJS.ProcessEnv = process.env,
): LaunchSpec {
  return spec(python, extensionRoot, bundled, ['--check'], base);
}

/** The language server; vscode-languageclient appends `--stdio` to these args. */
export function serverLaunch(
  python: string[],
  extensionRoot: string,
  bundled: boolean,
  base: NodeJS.ProcessEnv = process.env,
): LaunchSpec {
  return spec(python, extensionRoot, bundled, ['serve'], base);
}

/** The argument vscode-languageclient appends for TransportKind.stdio. */
export const STDIO_ARG = '--stdio';
