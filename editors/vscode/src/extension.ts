import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";

import { documentPatterns, serverCommand, Settings } from "./server";

let client: LanguageClient | undefined;

function settings(): Settings {
  const config = vscode.workspace.getConfiguration("promptlint");
  return {
    path: config.get<string>("path", "promptlint"),
    interpreter: config.get<string>("interpreter", ""),
    args: config.get<string[]>("args", []),
    globs: config.get<string[]>("globs", []),
  };
}

async function start(): Promise<void> {
  const current = settings();
  const command = serverCommand(current);
  const serverOptions: ServerOptions = { run: command, debug: command };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentPatterns(current).map((pattern) => ({ scheme: "file", pattern })),
    synchronize: {
      // The server reads the nearest config at each lint; saving one lints the open files again.
      fileEvents: vscode.workspace.createFileSystemWatcher("**/{.promptlint.yaml,.promptlint.yml,pyproject.toml}"),
    },
  };
  client = new LanguageClient("promptlint", "promptlint", serverOptions, clientOptions);
  try {
    await client.start();
  } catch (error) {
    void vscode.window.showErrorMessage(
      `promptlint: could not start \`${command.command} ${command.args.join(" ")}\` (pip install 'promptlint-rag[server]', or set promptlint.path): ${error}`,
    );
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration("promptlint")) {
        await client?.stop();
        await start();
      }
    }),
    vscode.commands.registerCommand("promptlint.restart", async () => {
      await client?.stop();
      await start();
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
