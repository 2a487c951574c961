// How the language server is started and which files it gets: kept apart from the
// vscode API so that a test can run it under plain Node.

export interface Settings {
  path: string;
  interpreter: string;
  args: string[];
  globs: string[];
}

export interface Command {
  command: string;
  args: string[];
}

// The prompt file types the extension activates on; promptlint.globs adds to them.
export const PROMPT_GLOBS = [
  "**/*.prompt",
  "**/*.prompty",
  "**/*.j2",
  "**/*.jinja",
  "**/*.jinja2",
  "**/*.hbs",
  "**/*.mustache",
  "**/*.prompt.yml",
  "**/*.prompt.yaml",
];

// An interpreter runs the command line's entry point itself: promptlint has no `python -m` entry.
const ENTRY = "from promptlint.cli.commands import main; main()";

export function serverCommand(settings: Settings): Command {
  if (settings.interpreter) {
    return { command: settings.interpreter, args: ["-c", ENTRY, "server", ...settings.args] };
  }
  return { command: settings.path || "promptlint", args: ["server", ...settings.args] };
}

export function documentPatterns(settings: Settings): string[] {
  return [...new Set([...PROMPT_GLOBS, ...settings.globs])];
}
