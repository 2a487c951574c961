"""The command line: the only module that reads files, prints, and chooses exit codes."""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

import click

from . import document as documents
from . import files, output, registry
from .config import Config, ConfigError
from .config import load as load_config
from .findings import Applicability
from .formatting import format_document
from .lint import check_document

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _selectors(value: str | None) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()] if value else []


class Failure(click.ClickException):
    """A one-line error; exit 2 like every failure to run (1 means findings)."""

    exit_code = EXIT_ERROR


def _config(config_path: str | None, select: str | None, ignore: str | None) -> Config:
    try:
        return load_config(Path(config_path) if config_path else None, select=_selectors(select), ignore=_selectors(ignore))
    except ConfigError as exc:
        raise Failure(str(exc)) from None


def _diff(path: str, old: str, new: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{path}", f"b/{path}"))


def _read(path: Path) -> documents.Document | None:
    try:
        return documents.read(path)
    except documents.UnreadableFile as exc:
        click.echo(f"error: {exc}", err=True)
        return None


def _write(path: Path, display: str, text: str) -> bool:
    """Write a fixed file; on failure say why in one line (not a traceback) and return False."""
    try:
        files.write_atomic(path, text)
    except OSError as exc:
        click.echo(f"error: {display}: cannot write: {exc.strerror or exc}", err=True)
        return False
    return True


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="promptlint")
def main() -> None:
    """promptlint: find and fix the context anti-patterns that cost RAG answers their correctness."""


config_option = click.option("--config", "config_path", type=click.Path(dir_okay=False), help="Config file (default: nearest .promptlint.yaml).")
select_option = click.option("--select", help="Comma-separated rule codes, names or prefixes to run (replaces the default set).")
ignore_option = click.option("--ignore", help="Comma-separated rule codes, names or prefixes to skip.")


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--fix", is_flag=True, help="Apply safe fixes in place.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply unsafe fixes (with --fix or --diff).")
@click.option("--diff", "show_diff", is_flag=True, help="Print the fixes as a unified diff; write nothing.")
@click.option("--output-format", type=click.Choice(output.FORMATS), default="full", show_default=True)
@config_option
@select_option
@ignore_option
def check(paths, fix, unsafe_fixes, show_diff, output_format, config_path, select, ignore):
    """Lint prompt files (or folders of them)."""
    config = _config(config_path, select, ignore)
    threshold = None
    if fix or show_diff:
        threshold = Applicability.UNSAFE if unsafe_fixes else Applicability.SAFE
    all_findings, texts, failed, changed = [], {}, False, 0
    for path in files.expand(list(paths) or [Path(".")]):
        doc = _read(path)
        if doc is None:
            failed = True
            continue
        result = check_document(doc, config, threshold)
        if result.error:
            click.echo(f"warning: {result.error}", err=True)
        if result.fixed is not None and not show_diff and not _write(path, doc.path, result.fixed):
            failed = True
            # The file is as it was, so report the findings in it.
            result = check_document(doc, config)
        if result.fixed is not None:
            if show_diff:
                click.echo(_diff(doc.path, doc.original, result.fixed), nl=False)
            changed += 1
        # Findings are placed in the text the rules read (no BOM, LF newlines), so show that one.
        texts[doc.path] = doc.as_read(result.fixed) if (result.fixed is not None and not show_diff) else doc.raw
        all_findings.extend(result.findings)
    if show_diff:
        sys.exit(EXIT_ERROR if failed else (EXIT_FINDINGS if changed else EXIT_CLEAN))
    click.echo(output.RENDERERS[output_format](all_findings, texts), nl=False)
    if output_format != "json":
        click.echo(output.summary(all_findings, changed if fix else 0), err=output_format == "concise")
    if failed:
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if all_findings else EXIT_CLEAN)


@main.command("format")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--check", "check_only", is_flag=True, help="Exit 1 if any file would be reformatted; write nothing.")
@click.option("--diff", "show_diff", is_flag=True, help="Print the changes as a unified diff; write nothing.")
@config_option
def format_command(paths, check_only, show_diff, config_path):
    """Rewrite the sources block of each prompt with the canonical renderer."""
    config = _config(config_path, None, None)
    failed, changed = False, 0
    for path in files.expand(list(paths) or [Path(".")]):
        doc = _read(path)
        if doc is None:
            failed = True
            continue
        new = format_document(doc, config)
        if new is None:
            continue
        changed += 1
        if show_diff:
            click.echo(_diff(doc.path, doc.original, new), nl=False)
        elif check_only:
            click.echo(f"Would reformat: {doc.path}")
        elif _write(path, doc.path, new):
            click.echo(f"Reformatted: {doc.path}", err=True)
        else:
            failed = True
    if failed:
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if changed and (check_only or show_diff) else EXIT_CLEAN)


@main.command()
@click.argument("selector")
def rule(selector):
    """Show the documentation of one rule (by code or name)."""
    found = registry.get(selector)
    if found is None:
        raise Failure(f"unknown rule '{selector}' (see 'promptlint rules')")
    click.echo(f"# {found.name} ({found.code})\n")
    click.echo(f"Fix: {found.fix}. Severity: {found.severity.name.lower()}. {'On' if found.default else 'Off'} by default.\n")
    click.echo(found.doc)


@main.command()
def rules():
    """List every rule."""
    for r in registry.all_rules():
        flag = "" if r.default else " (off by default)"
        click.echo(f"{r.code}  {r.name:<28} {r.fix:<12} {r.summary}{flag}")
