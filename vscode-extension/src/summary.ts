// "ShapeSense: Show model summary": asks the server for the summary of a model
// (`shapesense/modelSummary`, from the analysis it already holds) and shows the layer table
// and the shape-flow picture in a webview beside the editor. The CodeLens above each
// nn.Module class runs this command with [uri, class name].
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';

export const SHOW_SUMMARY = 'shapesense.showModelSummary';

interface SummaryRow {
  name: string;
  type: string;
  depth: number;
  output_shape: (number | string)[] | null;
  params: number | string;
  recursive: boolean;
  error?: string;
}

interface ModelSummary {
  model: string;
  context: string;
  inputs: ((number | string)[] | null)[];
  output_shape: (number | string)[] | null;
  rows: SummaryRow[];
  total_params: number | string;
  trainable_params: number | string;
  param_bytes: number | string;
  svg: string | null;
}

const panels = new Map<string, vscode.WebviewPanel>(); // one panel per (document, model)

export function registerSummary(context: vscode.ExtensionContext, client: () => LanguageClient | undefined): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(SHOW_SUMMARY, (uri?: string, model?: string) => show(client(), uri, model)),
  );
}

async function show(client: LanguageClient | undefined, uri?: string, model?: string): Promise<void> {
  const target = typeof uri === 'string' ? uri : vscode.window.activeTextEditor?.document.uri.toString();
  if (!target) {
    void vscode.window.showInformationMessage('ShapeSense: open a Python file with an nn.Module first.');
    return;
  }
  if (!client || !client.isRunning()) {
    void vscode.window.showWarningMessage('ShapeSense: the language server is not running.');
    return;
  }
  let result: ModelSummary | null;
  try {
    result = await client.sendRequest<ModelSummary | null>('shapesense/modelSummary',
      { uri: target, model: typeof model === 'string' ? model : undefined });
  } catch (e) {
    void vscode.window.showErrorMessage(`ShapeSense: the summary failed (${e instanceof Error ? e.message : e})`);
    return;
  }
  if (!result) {
    void vscode.window.showInformationMessage('ShapeSense: no nn.Module model found in this file.');
    return;
  }
  const key = `${target}#${result.model}`;
  let panel = panels.get(key);
  if (!panel) {
    panel = vscode.window.createWebviewPanel('shapesense.modelSummary', `Summary: ${result.model}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, { enableScripts: false });
    panels.set(key, panel);
    panel.onDidDispose(() => panels.delete(key));
  }
  panel.webview.html = html(result, panel.webview.cspSource);
  panel.reveal(vscode.ViewColumn.Beside, true);
}

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function count(n: number | string): string {
  return typeof n === 'number' ? n.toLocaleString('en-US') : n;
}

function shape(dims: (number | string)[] | null): string {
  return dims === null ? '--' : `[${dims.join(', ')}]`;
}

const CONTEXTS: Record<string, string> = {
  input: 'the inputs given', call: 'a call in the code', symbolic: 'symbolic inputs', none: 'no run known',
};

export function html(s: ModelSummary, cspSource: string): string {
  const rows = s.rows.map((r) => {
    const params = r.params === 0 ? '--' : r.recursive ? '(recursive)' : count(r.params);
    const cls = r.error ? ' class="error"' : '';
    const title = r.error ? ` title="${esc(r.error)}"` : '';
    return `<tr${cls}${title}><td style="padding-left:${0.4 + 1.2 * r.depth}em">${esc(r.name)}</td>` +
      `<td>${esc(r.type)}</td><td>${r.depth}</td><td>${esc(shape(r.output_shape))}</td>` +
      `<td class="num">${esc(params)}</td></tr>`;
  }).join('\n');
  const inputs = s.inputs.map((d) => `Tensor${shape(d)}`).join(', ');
  const mb = typeof s.param_bytes === 'number' ? (s.param_bytes / 1e6).toFixed(2) : esc(s.param_bytes);
  const errors = s.rows.filter((r) => r.error)
    .map((r) => `<li>${esc(r.name)} (${esc(r.type)}): ${esc(r.error ?? '')}</li>`).join('');
  // The SVG is Graphviz's output for names and shapes from the analysis (dot escapes them);
  // scripts are off and the policy allows no other source.
  const picture = s.svg ? `<h2>Shape flow</h2><div class="picture">${s.svg.replace(/^<\?xml[^>]*>/, '')
    .replace(/<!DOCTYPE[^>]*>/, '')}</div>` : '<p class="note">The shape-flow picture needs Graphviz (dot).</p>';
  return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline' ${cspSource}; img-src ${cspSource} data:;">
<style>
body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 0 1em; }
table { border-collapse: collapse; font-family: var(--vscode-editor-font-family); font-size: 0.9em; }
th, td { padding: 0.15em 0.8em; border-bottom: 1px solid var(--vscode-panel-border, #8884); text-align: left; }
td.num { text-align: right; }
tr.error td { color: var(--vscode-errorForeground, #c0392b); }
.totals { margin: 0.8em 0; line-height: 1.5; }
.picture svg { max-width: 100%; height: auto; background: #fff; border-radius: 4px; }
.note { opacity: 0.7; }
</style></head><body>
<h1>${esc(s.model)}</h1>
<p>Forward (${esc(CONTEXTS[s.context] ?? s.context)}): ${esc(inputs)} &rarr; ${esc(s.output_shape ? `Tensor${shape(s.output_shape)}` : '?')}</p>
<table><thead><tr><th>Layer</th><th>Type</th><th>Depth</th><th>Output shape</th><th>Params</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<div class="totals">Total params: <b>${esc(count(s.total_params))}</b><br>
Trainable params: ${esc(count(s.trainable_params))}<br>Params size (MB): ${mb}</div>
${errors ? `<ul class="errors">${errors}</ul>` : ''}
${picture}
</body></html>`;
}
