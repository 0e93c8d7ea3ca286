// Which Python runs the server, and whether that Python can run it.
//
// The .vsix ships the server and its Python dependencies (`bundled/libs`, filled with
// `pip install --target` at package time; z3-solver is native, so there is one .vsix per
// platform). They run on a Python the user already has (>= 3.10): `shapesense.interpreter`, else
// the Python extension's interpreter, else `python3` on PATH. With `shapesense.importStrategy`
// = `fromEnvironment` (or a .vsix without `bundled/libs`) the server comes from that Python's own
// environment instead. How Python is started, so that the workspace cannot inject code: launch.ts.
//
// Workspace Trust: in a Restricted Mode window a workspace's `shapesense.interpreter` (from
// .vscode/settings.json, i.e. whoever wrote the repository) is never run, nor is the Python
// extension's choice (which a workspace can steer too); only the user's own setting or python3.
import * as vscode from 'vscode';
import { execFile } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkLaunch } from './launch';

export type InterpreterSource = 'setting' | 'python-extension' | 'default';

export interface Interpreter {
  /** argv prefix: the executable and any extra args (e.g. `conda run -n env python`) */
  command: string[];
  source: InterpreterSource;
  /** a workspace-level `shapesense.interpreter` not used because the folder is not trusted */
  ignoredWorkspaceSetting?: string;
}

export interface CheckResult {
  ok: boolean;
  /** one-line reason shown in the notification */
  problem?: string;
  /** longer text for the output channel */
  detail?: string;
  pythonVersion?: string;
  serverVersion?: string;
}

// Minimal shape of the ms-python.python extension API (both the environments API and the
// older settings API), typed here so that the extension does not depend on its npm package.
interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { id: string; path: string };
    resolveEnvironment(env: { id: string; path: string } | string): Promise<
      { executable: { uri?: vscode.Uri } } | undefined
    >;
    onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
  };
  settings?: {
    getExecutionDetails(resource?: vscode.Uri): { execCommand: string[] | undefined };
    onDidChangeExecutionDetails?: vscode.Event<unknown>;
  };
}

const PY_EXT_ID = 'ms-python.python';

export function firstFolder(): vscode.WorkspaceFolder | undefined {
  return vscode.workspace.workspaceFolders?.[0];
}

function expand(value: string, folder: vscode.WorkspaceFolder | undefined): string {
  let v = value.trim();
  if (folder) v = v.replace(/\$\{workspaceFolder\}/g, folder.uri.fsPath);
  v = v.replace(/\$\{userHome\}/g, os.homedir());
  if (v === '~' || v.startsWith('~/')) v = path.join(os.homedir(), v.slice(1));
  // a relative path with a separator is relative to the workspace folder
  if (folder && !path.isAbsolute(v) && (v.includes('/') || v.includes('\\'))) {
    v = path.join(folder.uri.fsPath, v);
  }
  return v;
}

async function pythonExtensionApi(): Promise<PythonExtensionApi | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>(PY_EXT_ID);
  if (!ext) return undefined;
  try {
    return ext.isActive ? ext.exports : await ext.activate();
  } catch {
    return undefined;
  }
}

/** A workspace-level (folder or .code-workspace) value of `shapesense.interpreter`, if any. */
function workspaceLevelInterpreter(folder: vscode.WorkspaceFolder | undefined): string | undefined {
  const i = vscode.workspace.getConfiguration('shapesense', folder?.uri).inspect<string>('interpreter');
  const v = i?.workspaceFolderValue ?? i?.workspaceValue;
  return v && v.trim() ? v : undefined;
}

export async function resolveInterpreter(log: (msg: string) => void, trusted: boolean): Promise<Interpreter> {
  const folder = firstFolder();
  const config = vscode.workspace.getConfiguration('shapesense', folder?.uri);
  let configured: string | undefined;
  let ignored: string | undefined;
  if (trusted) {
    configured = config.get<string>('interpreter', '');
  } else {
    // only the user's own value; VS Code also hides workspace values of this setting in
    // Restricted Mode (package.json: restrictedConfigurations), this does not rely on it
    configured = config.inspect<string>('interpreter')?.globalValue;
    ignored = workspaceLevelInterpreter(folder);
  }
  if (configured && configured.trim()) {
    // in Restricted Mode ${workspaceFolder} and relative paths would point into the workspace
    const expanded = expand(configured, trusted ? folder : undefined);
    return { command: [expanded], source: 'setting', ignoredWorkspaceSetting: ignored };
  }
  const api = trusted ? await pythonExtensionApi() : undefined;
  if (api) {
    try {
      if (api.environments) {
        const envPath = api.environments.getActiveEnvironmentPath(folder?.uri);
        const env = await api.environments.resolveEnvironment(envPath);
        const exe = env?.executable.uri?.fsPath;
        if (exe) return { command: [exe], source: 'python-extension' };
      }
      const exec = api.settings?.getExecutionDetails(folder?.uri).execCommand;
      if (exec && exec.length > 0) return { command: exec, source: 'python-extension' };
    } catch (e) {
      log(`Could not ask the Python extension for its interpreter: ${e}`);
    }
  }
  return {
    command: [process.platform === 'win32' ? 'python' : 'python3'],
    source: 'default',
    ignoredWorkspaceSetting: ignored,
  };
}

/** Fires when the Python extension's active interpreter changes (no-op without it). */
export async function onPythonInterpreterChange(
  listener: () => void,
): Promise<vscode.Disposable | undefined> {
  const api = await pythonExtensionApi();
  if (api?.environments) return api.environments.onDidChangeActiveEnvironmentPath(listener);
  if (api?.settings?.onDidChangeExecutionDetails) {
    return api.settings.onDidChangeExecutionDetails(listener);
  }
  return undefined;
}

/** The pre-start check (`launch.py --check`, run exactly like the server) and its verdict. */
export function checkInterpreter(interp: Interpreter, extensionRoot: string, bundled: boolean): Promise<CheckResult> {
  const launch = checkLaunch(interp.command, extensionRoot, bundled);
  const shown = interp.command.join(' ');
  const choose =
    interp.source === 'default'
      ? 'Install Python 3.10 or newer (python.org, your package manager) or set "shapesense.interpreter" to one.'
      : 'Set "shapesense.interpreter" to a Python >= 3.10.';
  return new Promise((resolve) => {
    execFile(
      launch.command,
      launch.args,
      { timeout: 30000, cwd: launch.cwd, env: launch.env, windowsHide: true, maxBuffer: 1 << 20 },
      (err, stdout, stderr) => {
        const line = stdout.split(/\r?\n/).find((l) => l.startsWith('SHAPESENSE_CHECK '));
        if (!line) {
          const code = (err as NodeJS.ErrnoException | null)?.code;
          if (code === 'ENOENT') {
            resolve({
              ok: false,
              problem:
                interp.source === 'default'
                  ? `ShapeSense needs Python 3.10 or newer, but "${shown}" was not found on PATH. ${choose}`
                  : `Python interpreter "${shown}" was not found. ${choose}`,
              detail: `Could not run "${shown}" (ENOENT).`,
            });
          } else if (/Unknown option|unknown option/.test(stderr)) {
            // Python 2 and very old 3.x do not know -I
            resolve({
              ok: false,
              problem: `ShapeSense needs Python >= 3.10, but "${shown}" is older. ${choose}`,
              detail: stderr.trim(),
            });
          } else {
            resolve({
              ok: false,
              problem: `Python interpreter "${shown}" could not be run.`,
              detail: `${err ?? ''}\n${stderr}`.trim(),
            });
          }
          return;
        }
        const info = JSON.parse(line.slice('SHAPESENSE_CHECK '.length)) as {
          python: string;
          executable: string;
          missing: Record<string, string>;
          old?: boolean;
          version?: string;
          location?: string;
        };
        if (info.old) {
          resolve({
            ok: false,
            pythonVersion: info.python,
            problem: `ShapeSense needs Python >= 3.10, but "${shown}" is Python ${info.python}. ${choose}`,
            detail: `Interpreter ${info.executable} is Python ${info.python}.`,
          });
          return;
        }
        const missing = Object.keys(info.missing);
        if (missing.length > 0) {
          const pipName = (m: string) =>
            m === 'shapesense.server' ? 'shapesense' : m === 'z3' ? 'z3-solver' : m;
          const detail = Object.entries(info.missing)
            .map(([m, e]) => `  import ${m}: ${e}`)
            .join('\n');
          resolve({
            ok: false,
            pythonVersion: info.python,
            problem: bundled
              ? `The ShapeSense server bundled with the extension cannot be loaded by ${info.executable} ` +
                `(Python ${info.python}): ${missing.map(pipName).join(', ')} failed to import. ` +
                'Reinstall the extension for this platform, or choose another interpreter.'
              : `The ShapeSense server cannot start: ${missing.map(pipName).join(', ')} ` +
                `not importable in ${info.executable} (Python ${info.python}). ` +
                `Run "${info.executable} -m pip install shapesense", choose another interpreter, ` +
                'or set "shapesense.importStrategy" to "useBundled".',
            detail,
          });
          return;
        }
        resolve({
          ok: true,
          pythonVersion: info.python,
          serverVersion: info.version,
          detail: `${info.executable}; server from ${info.location ?? '?'}`,
        });
      },
    );
  });
}
