// `shapesense.trace.server` as users expect it: "messages"/"verbose" turn LSP tracing on.
//
// vscode-languageclient 10+ traces only while its trace channel's log level is Trace (set by
// hand in the Output view) and uses `trace.server` just for the verbosity. This adapter reports
// log level Trace exactly when the setting is not "off", and writes trace lines at info level
// into the ShapeSense output channel, so that they show up without touching the log level.
import * as vscode from 'vscode';

function traceSetting(): string {
  return vscode.workspace.getConfiguration('shapesense').get<string>('trace.server', 'off');
}

export class SettingTraceChannel implements vscode.LogOutputChannel {
  private readonly emitter = new vscode.EventEmitter<vscode.LogLevel>();
  readonly onDidChangeLogLevel = this.emitter.event;

  constructor(private readonly out: vscode.LogOutputChannel) {}

  get logLevel(): vscode.LogLevel {
    return traceSetting() === 'off' ? this.out.logLevel : vscode.LogLevel.Trace;
  }
  get name(): string {
    return this.out.name;
  }
  /** call when `shapesense.trace.server` changed */
  settingChanged(): void {
    this.emitter.fire(this.logLevel);
  }
  trace(message: string, ...args: unknown[]): void {
    this.out.info(`[trace] ${message}`, ...args);
  }
  debug(message: string, ...args: unknown[]): void {
    this.out.debug(message, ...args);
  }
  info(message: string, ...args: unknown[]): void {
    this.out.info(message, ...args);
  }
  warn(message: string, ...args: unknown[]): void {
    this.out.warn(message, ...args);
  }
  error(error: string | Error, ...args: unknown[]): void {
    this.out.error(error, ...args);
  }
  append(value: string): void {
    this.out.append(value);
  }
  appendLine(value: string): void {
    this.out.appendLine(value);
  }
  replace(value: string): void {
    this.out.replace(value);
  }
  clear(): void {
    this.out.clear();
  }
  show(columnOrPreserveFocus?: vscode.ViewColumn | boolean, preserveFocus?: boolean): void {
    if (typeof columnOrPreserveFocus === 'boolean' || columnOrPreserveFocus === undefined) {
      this.out.show(columnOrPreserveFocus);
    } else {
      this.out.show(columnOrPreserveFocus, preserveFocus);
    }
  }
  hide(): void {
    this.out.hide();
  }
  dispose(): void {
    this.emitter.dispose(); // the real channel is disposed by the extension
  }
}
