// ShapeSense VS Code client: starts the server (`<python> -I <ext>/bundled/tool/launch.py
// [--bundled] serve --stdio`, see launch.ts) and wires it to VS Code (hover, diagnostics, code
// actions, inlay hints come from the server over LSP).
import * as readline from 'node:readline';
import * as vscode from 'vscode';
import {
  CloseAction,
  CloseHandlerResult,
  ErrorAction,
  ErrorHandler,
  ErrorHandlerResult,
  DocumentDiagnosticRequest,
  ExecuteCommandRequest,
  InlayHintRequest,
  LanguageClient,
  LanguageClientOptions,
  Message,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import { registerSummary } from './summary';
import {
  checkInterpreter,
  firstFolder,
  Interpreter,
  onPythonInterpreterChange,
  resolveInterpreter,
} from './interpreter';
import { ImportStrategy, LaunchSpec, serverLaunch, STDIO_ARG, usesBundled } from './launch';
import { StatusItem } from './status';
import { SettingTraceChannel } from './trace';

const CLIENT_ID = 'shapesense'; // also makes the client honour `shapesense.trace.server`
const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60 * 1000;
const ANALYSIS_STALE_MS = 20000;
const ANNOTATE_KINDS = ['source.shapesense.annotate', 'refactor.rewrite'];

let output: vscode.LogOutputChannel;
let traceChannel: SettingTraceChannel;
let status: StatusItem;
let client: LanguageClient | undefined;
let interpreter: Interpreter | undefined;
/** the extension's own folder: holds bundled/ and is the servers' working directory */
let extensionRoot = '';
/** serialises start/stop/restart so that quick setting changes cannot race */
let lifecycle: Promise<void> = Promise.resolve();
let stopping = false;
const crashTimes: number[] = [];
/** documents edited whose diagnostics have not come back yet (uri -> time of the edit) */
const pending = new Map<string, number>();
/** last diagnostics from the server, so that toggling `shapesense.enable` can re-show them */
const lastDiagnostics = new Map<string, { uri: vscode.Uri; diagnostics: vscode.Diagnostic[] }>();
/** the server's last stderr lines, quoted when it fails to start */
const stderrTail: string[] = [];

function log(msg: string): void {
  output.info(`[client] ${msg}`);
}

// ------------------------------------------------------------------ settings

/** The settings mirrored to the server (initializationOptions and section "shapesense"). */
function serverSettings(scope?: vscode.Uri) {
  // Only what the user set: a key left out keeps the project's [tool.shapesense] value (or
  // the server's default, e.g. the adaptive debounce), which a sent default would override.
  const c = vscode.workspace.getConfiguration('shapesense', scope);
  const out: Record<string, unknown> = {};
  for (const key of ['enable', 'annotationStyle', 'inlayHints', 'conditionalSeverity', 'solverTimeoutMs',
    'debounceMs', 'warnUnusedIgnores']) {
    const i = c.inspect(key);
    const set = [i?.workspaceFolderValue, i?.workspaceValue, i?.globalValue].find((v) => v !== undefined);
    if (set !== undefined) {
      out[key] = set;
    }
  }
  return out;
}

function isEnabled(uri: vscode.Uri): boolean {
  return vscode.workspace.getConfiguration('shapesense', uri).get<boolean>('enable', true);
}

function inlayHintsEnabled(uri: vscode.Uri): boolean {
  const c = vscode.workspace.getConfiguration('shapesense', uri);
  return c.get<boolean>('enable', true) && c.get<boolean>('inlayHints', true);
}

// ------------------------------------------------------------------ notifications

function notifyError(message: string, offerRestart = false): void {
  const buttons = ['Open Settings', 'Show Output'];
  if (offerRestart) buttons.push('Restart Server');
  void vscode.window.showErrorMessage(message, ...buttons).then((choice) => {
    if (choice === 'Open Settings') {
      void vscode.commands.executeCommand('workbench.action.openSettings', 'shapesense.interpreter');
    } else if (choice === 'Show Output') {
      output.show(true);
    } else if (choice === 'Restart Server') {
      void vscode.commands.executeCommand('shapesense.restartServer');
    }
  });
}

// ------------------------------------------------------------------ analysing state

function markPending(uri: vscode.Uri): void {
  if (!isEnabled(uri)) return;
  pending.set(uri.toString(), Date.now());
  refreshPhase();
}

function refreshPhase(): void {
  if (!client || (status.current !== 'ready' && status.current !== 'analysing')) return;
  const now = Date.now();
  for (const [k, t] of pending) if (now - t > ANALYSIS_STALE_MS) pending.delete(k);
  status.set(pending.size > 0 ? 'analysing' : 'ready');
}

// ------------------------------------------------------------------ crash handling

class RestartingErrorHandler implements ErrorHandler {
  /** set once the server has answered `initialize`; before that a failure is a start failure */
  everRunning = false;

  error(_error: Error, _message: Message | undefined, count: number | undefined): ErrorHandlerResult {
    // a few broken messages: keep going; a stream of them: shut the connection down
    if (count !== undefined && count <= 3) return { action: ErrorAction.Continue, handled: true };
    return { action: ErrorAction.Shutdown, handled: true };
  }

  closed(): CloseHandlerResult {
    // while stopping on purpose, or when the server never came up (start() then rejects and
    // startServer() reports it), do not restart
    if (stopping || !this.everRunning) return { action: CloseAction.DoNotRestart, handled: true };
    const now = Date.now();
    while (crashTimes.length > 0 && now - crashTimes[0] > RESTART_WINDOW_MS) crashTimes.shift();
    pending.clear();
    if (crashTimes.length < MAX_RESTARTS) {
      crashTimes.push(now);
      const msg = `The ShapeSense server stopped unexpectedly; restarting it (${crashTimes.length}/${MAX_RESTARTS}).`;
      log(msg);
      status.set('starting', msg);
      void vscode.window.showWarningMessage(msg, 'Show Output').then((c) => {
        if (c) output.show(true);
      });
      return { action: CloseAction.Restart, handled: true };
    }
    const msg =
      `The ShapeSense server crashed ${MAX_RESTARTS + 1} times in 3 minutes and will not be ` +
      'restarted automatically. See the output for its last messages.';
    log(msg);
    status.set('error', msg);
    notifyError(msg, true);
    return { action: CloseAction.DoNotRestart, handled: true };
  }
}

// ------------------------------------------------------------------ the client

/** A LanguageClient that leaves the start-failure notification to startServer(), which
 * names the cause (the server's last stderr line) and offers settings/output/restart. */
class ShapeSenseClient extends LanguageClient {
  override error(message: string, data?: unknown, showNotification: boolean | 'force' = true): void {
    if (message.includes("couldn't create connection to server")) showNotification = false;
    super.error(message, data, showNotification);
  }
}

function serverLogLine(line: string): void {
  stderrTail.push(line);
  if (stderrTail.length > 40) stderrTail.shift();
  if (/\b(ERROR|CRITICAL)\b|Traceback|Error:/.test(line)) output.error(`[server] ${line}`);
  else if (/\bWARNING\b/.test(line)) output.warn(`[server] ${line}`);
  else output.info(`[server] ${line}`);
}

/** the most telling line of the server's stderr (the exception line of a traceback) */
function lastServerError(): string | undefined {
  for (let i = stderrTail.length - 1; i >= 0; i--) {
    const l = stderrTail[i].trim();
    if (l && !l.startsWith('File ') && !l.startsWith('^')) return l;
  }
  return undefined;
}

function makeClient(interp: Interpreter, launch: LaunchSpec): LanguageClient {
  const folder = firstFolder();
  const serverOptions: ServerOptions = {
    command: launch.command,
    // vscode-languageclient appends --stdio for TransportKind.stdio
    args: launch.args,
    transport: TransportKind.stdio,
    // never the workspace as cwd (see launch.ts)
    options: { cwd: launch.cwd, env: launch.env },
  };

  const errorHandler = new RestartingErrorHandler();
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'python' },
      { scheme: 'untitled', language: 'python' },
      { notebook: 'jupyter-notebook', language: 'python' }, // cells; synced as notebooks (LSP 3.17)
    ],
    outputChannel: output,
    traceOutputChannel: traceChannel,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    // workspaceTrusted: the server must not run anything a workspace file names (e.g. an
    // interpreter in pyproject.toml) when VS Code has not trusted the folder
    initializationOptions: { ...serverSettings(folder?.uri), workspaceTrusted: vscode.workspace.isTrusted },
    // sends workspace/didChangeConfiguration when any `shapesense.*` setting changes;
    // workspace/configuration requests for section "shapesense" are answered per scopeUri
    synchronize: { configurationSection: 'shapesense' },
    errorHandler,
    stdioOptions: {
      stdout: (input) => readline.createInterface({ input, crlfDelay: Infinity }).on('line', serverLogLine),
      stderr: (input) => readline.createInterface({ input, crlfDelay: Infinity }).on('line', serverLogLine),
    },
    initializationFailedHandler: (error) => {
      log(`Server initialisation failed: ${error}`);
      return false;
    },
    middleware: {
      // workspace/configuration for "shapesense": only what the user set (see serverSettings)
      workspace: {
        configuration: async (params, token, next) => {
          const result = await next(params, token);
          if (!Array.isArray(result)) return result;
          return params.items.map((item, i) => (item.section === 'shapesense'
            ? serverSettings(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined) : result[i]));
        },
      },
      didOpen: (doc, next) => {
        markPending(doc.uri);
        return next(doc);
      },
      didChange: (event, next) => {
        if (event.contentChanges.length > 0) markPending(event.document.uri);
        return next(event);
      },
      // pull model (textDocument/diagnostic): the answer marks the end of an analysis
      provideDiagnostics: async (doc, previousResultId, token, next) => {
        const uri = doc instanceof vscode.Uri ? doc : doc.uri;
        try {
          if (!isEnabled(uri)) return { kind: 'full', items: [] } as unknown as ReturnType<typeof next>;
          return await next(doc, previousResultId, token);
        } finally {
          if (!token.isCancellationRequested) {
            pending.delete(uri.toString());
            refreshPhase();
          }
        }
      },
      // push model (textDocument/publishDiagnostics)
      handleDiagnostics: (uri, diagnostics, next) => {
        lastDiagnostics.set(uri.toString(), { uri, diagnostics });
        pending.delete(uri.toString());
        refreshPhase();
        next(uri, isEnabled(uri) ? diagnostics : []);
      },
      provideHover: (doc, pos, token, next) => (isEnabled(doc.uri) ? next(doc, pos, token) : null),
      provideCodeActions: (doc, range, ctx, token, next) =>
        isEnabled(doc.uri) ? next(doc, range, ctx, token) : [],
      provideInlayHints: (doc, range, token, next) =>
        inlayHintsEnabled(doc.uri) ? next(doc, range, token) : [],
    },
  };

  const c = new ShapeSenseClient(CLIENT_ID, 'ShapeSense', serverOptions, clientOptions);
  c.onDidChangeState((e) => {
    log(`client state: ${State[e.oldState]} -> ${State[e.newState]}`);
    if (e.newState === State.Running) {
      errorHandler.everRunning = true;
      if (crashTimes.length > 0) log('server is running again');
      status.set('ready', [`Python: ${interp.command.join(' ')}`, restrictedNote(interp)].filter(Boolean).join('\n\n'));
      refreshPhase();
    } else if (e.newState === State.Starting) {
      status.set('starting');
    }
  });
  return c;
}

/** Why the server may run a different Python than configured (Restricted Mode), or ''. */
function restrictedNote(interp: Interpreter): string {
  if (vscode.workspace.isTrusted) return '';
  // VS Code hides workspace values of restricted settings in Restricted Mode, so the value
  // ignored is usually not even known here
  const ignored = interp.ignoredWorkspaceSetting
    ? ` The workspace's shapesense.interpreter ("${interp.ignoredWorkspaceSetting}") is ignored.`
    : '';
  return (
    'Restricted Mode: this folder is not trusted, so ShapeSense runs only the Python from your user ' +
    `settings or the default one (${interp.command.join(' ')}), never one named by the workspace's ` +
    `settings or chosen by the Python extension.${ignored} Trust the folder to use those.`
  );
}

async function startServer(): Promise<void> {
  stopping = false;
  status.set('starting', '');
  const trusted = vscode.workspace.isTrusted;
  const interp = await resolveInterpreter(log, trusted);
  interpreter = interp;
  const strategy = vscode.workspace
    .getConfiguration('shapesense', firstFolder()?.uri)
    .get<ImportStrategy>('importStrategy', 'useBundled');
  const bundled = usesBundled(strategy, extensionRoot);
  log(`interpreter (${interp.source}): ${interp.command.join(' ')}; server from ` +
    (bundled ? 'the extension (bundled)' : "the interpreter's environment"));
  const note = restrictedNote(interp);
  status.restricted = !trusted;
  if (note) output.warn(`[client] ${note}`);
  const check = await checkInterpreter(interp, extensionRoot, bundled);
  if (!check.ok) {
    log(`cannot start the server: ${check.problem}`);
    if (check.detail) log(check.detail);
    status.set('error', [check.problem ?? 'cannot start', note].filter(Boolean).join('\n\n'));
    notifyError(check.problem ?? 'The ShapeSense server cannot start.', true);
    return;
  }
  const launch = serverLaunch(interp.command, extensionRoot, bundled);
  log(`Python ${check.pythonVersion}, shapesense ${check.serverVersion || '?'} (${check.detail}); ` +
    `starting "${[launch.command, ...launch.args, STDIO_ARG].join(' ')}" in ${launch.cwd}`);
  stderrTail.length = 0;
  const c = makeClient(interp, launch);
  client = c;
  try {
    await c.start();
    const info = c.initializeResult?.serverInfo;
    log(`server ready: ${info?.name ?? 'shapesense'} ${info?.version ?? ''}`.trim());
  } catch (e) {
    await new Promise((r) => setTimeout(r, 300)); // let the last stderr lines arrive
    const why = lastServerError() ?? (e instanceof Error ? e.message : String(e));
    const msg = `The ShapeSense server failed to start: ${why}`;
    log(msg);
    log(`(client error: ${e instanceof Error ? e.message : e})`);
    status.set('error', msg);
    notifyError(msg, true);
    client = undefined;
    stopping = true;
    try {
      await c.dispose(2000);
    } catch {
      /* it never ran: nothing to stop */
    }
    stopping = false;
  }
}

async function stopServer(): Promise<void> {
  const c = client;
  client = undefined;
  pending.clear();
  if (!c) return;
  stopping = true;
  try {
    if (c.isRunning()) await c.stop(5000);
    await c.dispose(2000);
  } catch (e) {
    log(`error while stopping the server: ${e}`);
  }
  stopping = false;
  status.set('stopped');
}

function queue(step: () => Promise<void>): Promise<void> {
  lifecycle = lifecycle.then(step, step).catch((e) => log(`lifecycle error: ${e}`));
  return lifecycle;
}

function restart(reason: string): Promise<void> {
  return queue(async () => {
    log(`restarting the server (${reason})`);
    crashTimes.length = 0;
    await stopServer();
    await startServer();
  });
}

// ------------------------------------------------------------------ commands

async function annotateCurrentFile(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'python') {
    void vscode.window.showInformationMessage('ShapeSense: open a Python file to annotate.');
    return;
  }
  if (!client || !client.isRunning()) {
    notifyError('The ShapeSense server is not running.', true);
    return;
  }
  const doc = editor.document;
  const whole = new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length));
  // code actions over the whole file, asked by kind (only: [kind]); the server lists its
  // "Annotate all ..." action under its own source kind, and refactor.rewrite is the fallback
  let actions: (vscode.CodeAction | vscode.Command)[] = [];
  for (const kind of ANNOTATE_KINDS) {
    actions =
      (await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[]>(
        'vscode.executeCodeActionProvider',
        doc.uri,
        whole,
        kind,
        20, // resolve lazily computed edits (codeAction/resolve)
      )) ?? [];
    if (actions.some((a) => a.title.startsWith('Annotate all'))) break;
  }
  const annotate = actions.find((a) => a.title.startsWith('Annotate all'));
  if (annotate) {
    if ('edit' in annotate || 'kind' in annotate || 'diagnostics' in annotate) {
      const action = annotate as vscode.CodeAction;
      if (action.edit) await vscode.workspace.applyEdit(action.edit);
      if (action.command) {
        await vscode.commands.executeCommand(action.command.command, ...(action.command.arguments ?? []));
      }
    } else {
      const cmd = annotate as vscode.Command;
      await vscode.commands.executeCommand(cmd.command, ...(cmd.arguments ?? []));
    }
    log(`applied "${annotate.title}"`);
    return;
  }
  // fallback: a server-side command, if the server offers one
  const cmds = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
  if (cmds.includes('shapesense.annotateFile')) {
    await client.sendRequest(ExecuteCommandRequest.type, {
      command: 'shapesense.annotateFile',
      arguments: [doc.uri.toString()],
    });
    return;
  }
  void vscode.window.showInformationMessage('ShapeSense: no tensor shapes to annotate in this file.');
}

// ------------------------------------------------------------------ activation

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('ShapeSense', { log: true });
  traceChannel = new SettingTraceChannel(output);
  status = new StatusItem();
  extensionRoot = context.extensionPath;
  context.subscriptions.push(output, traceChannel, status);
  log(`ShapeSense extension ${context.extension.packageJSON.version} activating ` +
    `(VS Code ${vscode.version})`);

  registerSummary(context, () => client); // "Show model summary" (src/summary.ts)
  context.subscriptions.push(
    vscode.commands.registerCommand('shapesense.restartServer', () => restart('command')),
    vscode.commands.registerCommand('shapesense.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('shapesense.annotateCurrentFile', annotateCurrentFile),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('shapesense')) return;
      log(`settings changed: ${JSON.stringify(serverSettings(firstFolder()?.uri))}`);
      if (e.affectsConfiguration('shapesense.trace.server')) traceChannel.settingChanged();
      if (e.affectsConfiguration('shapesense.interpreter') || e.affectsConfiguration('shapesense.importStrategy')) {
        void restart('shapesense.interpreter or shapesense.importStrategy changed');
        return;
      }
      if (e.affectsConfiguration('shapesense.enable')) {
        // re-show or hide the diagnostics already received; the server is told as well
        for (const { uri, diagnostics } of lastDiagnostics.values()) {
          client?.diagnostics?.set(uri, isEnabled(uri) ? diagnostics : []);
        }
        try {
          client?.getFeature(DocumentDiagnosticRequest.method)?.refresh();
        } catch (err) {
          log(`could not refresh diagnostics: ${err}`);
        }
      }
      if (e.affectsConfiguration('shapesense.enable') || e.affectsConfiguration('shapesense.inlayHints')) {
        // make VS Code ask for inlay hints again (the middleware filters them by setting)
        try {
          const feature = client?.getFeature(InlayHintRequest.method);
          const seen = new Set<unknown>();
          for (const ed of vscode.window.visibleTextEditors) {
            const p = feature?.getProvider(ed.document);
            if (p && !seen.has(p)) {
              seen.add(p);
              p.onDidChangeInlayHints.fire();
            }
          }
        } catch (err) {
          log(`could not refresh inlay hints: ${err}`);
        }
      }
    }),
    // a trusted folder may use its own interpreter setting and the Python extension's choice
    vscode.workspace.onDidGrantWorkspaceTrust(() => void restart('the folder is now trusted')),
    { dispose: () => void stopServer() },
  );
  const pyListener = await onPythonInterpreterChange(() => {
    // in Restricted Mode the Python extension's choice is not used, so nothing changes
    if (interpreter?.source !== 'setting' && vscode.workspace.isTrusted) {
      void restart('Python extension interpreter changed');
    }
  });
  if (pyListener) context.subscriptions.push(pyListener);

  // a stale "analysing" state (no diagnostics came back) must not spin forever
  const timer = setInterval(refreshPhase, 5000);
  context.subscriptions.push({ dispose: () => clearInterval(timer) });

  await queue(startServer);
}

export function deactivate(): Thenable<void> | undefined {
  return stopServer();
}
