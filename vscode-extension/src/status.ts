// The status bar item: starting / ready / analysing / error / disabled.
import * as vscode from 'vscode';

export type Phase = 'starting' | 'ready' | 'analysing' | 'error' | 'stopped';

export class StatusItem implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private phase: Phase = 'stopped';
  private detail = '';
  /** Restricted Mode (untrusted folder): a shield next to the name, the reason in the tooltip */
  restricted = false;

  constructor() {
    this.item = vscode.window.createStatusBarItem('shapesense.status', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'ShapeSense';
    this.item.command = 'shapesense.showOutput';
    this.set('starting');
    this.item.show();
  }

  get current(): Phase {
    return this.phase;
  }

  set(phase: Phase, detail?: string): void {
    this.phase = phase;
    if (detail !== undefined) this.detail = detail;
    const icon = {
      starting: '$(loading~spin)',
      ready: '$(check)',
      analysing: '$(sync~spin)',
      error: '$(error)',
      stopped: '$(circle-slash)',
    }[phase];
    const label = {
      starting: 'starting',
      ready: 'ready',
      analysing: 'analysing',
      error: 'error',
      stopped: 'stopped',
    }[phase];
    this.item.text = `${icon} ShapeSense${this.restricted ? ' $(shield)' : ''}`;
    const tip = new vscode.MarkdownString(`**ShapeSense**: ${label}`);
    if (this.detail) tip.appendText(`\n\n${this.detail}`);
    tip.appendMarkdown('\n\nClick to show the output.');
    this.item.tooltip = tip;
    this.item.accessibilityInformation = {
      label: `ShapeSense ${label}${this.restricted ? ' (Restricted Mode)' : ''}`,
    };
    this.item.backgroundColor =
      phase === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
