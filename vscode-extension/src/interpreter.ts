// Which Python runs the server, and whether that Python can run it.
//
// The server runs from the *user's* Python environment: `<python> -m shapesense serve --stdio`.
// Its dependencies (pygls, lsprotocol, z3-solver, jedi, parso) come from that environment,
// installed by `pip install shapesense`. Nothing Python is bundled in the .vsix: z3-solver ships
// a platform-specific native library (~40 MB per platform), so bundling would mean one .vsix per
// OS/arch and a second copy of packages the user already manages with pip.
import * as vscode from 'vscode';
import { execFile } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';

export type InterpreterSource = 'setting' | 'python-extension' | 'default';

export interface Interpreter {
  /** argv prefix: the executable and any extra args (e.g. `conda run -n env python`) */
  command: string[];
  source: InterpreterSource;
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

export async function resolveInterpreter(log: (msg: string) => void): Promise<Interpreter> {
  const folder = firstFolder();
  const configured = vscode.workspace
    .getConfiguration('shapesense', folder?.uri)
    .get<string>('interpreter', '');
  if (configured && configured.trim()) {
    return { command: [expand(configured, folder)], source: 'setting' };
  }
  const api = await pythonExtensionApi();
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
  return { command: [process.platform === 'win32' ? 'python' : 'python3'], source: 'default' };
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

// Imports everything the server needs and reports what is missing, as one JSON line.
const CHECK_SCRIPT = `
import json, sys
out = {"python": sys.version.split()[0], "executable": sys.executable, "missing": {}}
if sys.version_info < (3, 10):
    out["old"] = True
else:
    for mod in ("shapesense.server", "pygls", "lsprotocol", "parso", "jedi", "z3"):
        try:
            __import__(mod)
        except Exception as e:
            out["missing"][mod] = type(e).__name__ + ": " + str(e)
    try:
        from importlib.metadata import version
        out["version"] = version("shapesense")
    except Exception:
        pass
print("SHAPESENSE_CHECK " + json.dumps(out))
`;

export function checkInterpreter(interp: Interpreter, cwd?: string): Promise<CheckResult> {
  const [exe, ...pre] = interp.command;
  const shown = interp.command.join(' ');
  return new Promise((resolve) => {
    execFile(
      exe,
      [...pre, '-c', CHECK_SCRIPT],
      { timeout: 30000, cwd, windowsHide: true, maxBuffer: 1 << 20 },
      (err, stdout, stderr) => {
        const line = stdout.split(/\r?\n/).find((l) => l.startsWith('SHAPESENSE_CHECK '));
        if (!line) {
          const code = (err as NodeJS.ErrnoException | null)?.code;
          if (code === 'ENOENT') {
            resolve({
              ok: false,
              problem: `Python interpreter "${shown}" was not found.`,
              detail: `Could not run "${shown}" (ENOENT). Set "shapesense.interpreter" to a Python >= 3.10 with ShapeSense installed.`,
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
        };
        if (info.old) {
          resolve({
            ok: false,
            pythonVersion: info.python,
            problem: `ShapeSense needs Python >= 3.10, but "${shown}" is Python ${info.python}.`,
            detail: `Interpreter ${info.executable} is Python ${info.python}.`,
          });
          return;
        }
        const missing = Object.keys(info.missing);
        if (missing.length > 0) {
          const pipName = (m: string) =>
            m === 'shapesense.server' ? 'shapesense' : m === 'z3' ? 'z3-solver' : m;
          resolve({
            ok: false,
            pythonVersion: info.python,
            problem:
              `The ShapeSense server cannot start: ${missing.map(pipName).join(', ')} ` +
              `not importable in ${info.executable} (Python ${info.python}). ` +
              `Run "${info.executable} -m pip install shapesense" or choose another interpreter.`,
            detail: Object.entries(info.missing)
              .map(([m, e]) => `  import ${m}: ${e}`)
              .join('\n'),
          });
          return;
        }
        resolve({ ok: true, pythonVersion: info.python, serverVersion: info.version });
      },
    );
  });
}
