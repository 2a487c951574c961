"""`promptlint audit` on object storage: logs named by URL (s3://), read through fsspec, against moto's S3 server on 127.0.0.1.

The lake of test_auditscale (partitions of every format, and a marker) is put in a
bucket as it is on disk; a glob or a prefix of s3:// logs must give the report of
the same files read locally, with only the names of the logs changed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import s3fs
from click.testing import CliRunner
from moto import settings as moto_settings
from moto.server import ThreadedMotoServer

import test_auditscale

from promptlint.audit import logs
from promptlint.cli.commands import main

lake = test_auditscale.lake  # the fixture, shared: the same files on disk and in the bucket
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "lake-reader", "AWS_SECRET_ACCESS_KEY": "s3cr3t-never-shown", "AWS_DEFAULT_REGION": "us-east-1"}


@pytest.fixture(scope="module")
def server():
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def bucket(server, lake, monkeypatch) -> str:
    """The lake's files under s3://lake/ (the marker too), and the environment that reaches them."""
    for key, value in {**CREDENTIALS, "AWS_ENDPOINT_URL": server}.items():
        monkeypatch.setenv(key, value)
    s3fs.S3FileSystem.clear_instance_cache()  # a filesystem is cached with the credentials it was made with
    fs = s3fs.S3FileSystem()
    if not fs.exists("lake"):
        fs.mkdir("lake")
        for path in sorted((lake / "logs").rglob("*")):
            if path.is_file():
                fs.pipe(f"lake/logs/{path.relative_to(lake / 'logs').as_posix()}", path.read_bytes())
    monkeypatch.chdir(lake)
    yield "s3://lake"
    s3fs.S3FileSystem.clear_instance_cache()


def run(*args: str):
    result = CliRunner().invoke(main, ["audit", "--config", "config.yaml", "--format", "json", "--jobs", "1", "--examples", "50", *args], prog_name="promptlint")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def renamed(result, prefix: str) -> tuple[int, str, dict]:
    """The exit code, standard error and report of a run, with each log named without the prefix."""
    data = json.loads(result.stdout)
    data["logs"] = [name.removeprefix(prefix) for name in data["logs"]]
    for rule in data["rules"]:
        rule["worst"] = [{**example, "path": example["path"].removeprefix(prefix)} for example in rule["worst"]]
    return result.exit_code, result.stderr.replace(prefix, ""), data


@pytest.mark.parametrize("argument", ["logs/day=*/*.jsonl*", "logs", "logs/", "logs/day=2"])
def test_logs_in_object_storage_give_the_report_of_the_same_files_on_disk(bucket, argument):
    local = run(argument)
    remote = run(f"{bucket}/{argument}")
    assert json.loads(remote.stdout)["logs"] == [f"{bucket}/{name}" for name in json.loads(local.stdout)["logs"]]
    assert renamed(remote, f"{bucket}/") == renamed(local, "")
    assert json.loads(local.stdout)["prompts"] > 100


def test_a_url_is_listed_as_the_folder_on_disk(bucket):
    assert logs.partitions([f"{bucket}/logs"]) == [f"{bucket}/{name}" for name in logs.partitions(["logs"])]
    assert logs.partitions([f"{bucket}/logs/day=1/part-0.jsonl.gz"]) == [f"{bucket}/logs/day=1/part-0.jsonl.gz"]


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("s3://lake/logs/*.csv", "s3://lake/logs/*.csv: cannot read: no log matches this pattern"),
        ("s3://lake/nothing/", "s3://lake/nothing/: cannot read: No such file or directory"),
    ],
)
def test_a_url_without_logs_is_a_one_line_error(bucket, argument, message):
    result = run(argument)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"Error: {message}\n")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("s3://lake/logs/", "reading s3:// logs needs the s3fs package: pip install 'promptlint-rag[s3]'"),
        ("gs://lake/logs/", "reading gs:// logs needs the gcsfs package: pip install 'promptlint-rag[gcs]'"),
        ("abfs://lake/logs/", "reading abfs:// logs needs the adlfs package: pip install 'promptlint-rag[azure]'"),
    ],
)
def test_a_missing_filesystem_is_one_line_naming_the_extra(tmp_path, monkeypatch, url, message):
    monkeypatch.chdir(tmp_path)
    Path("config.yaml").write_text("today: 2026-12-02\n", encoding="utf-8")
    for module in ("s3fs", "gcsfs", "adlfs"):
        monkeypatch.setitem(sys.modules, module, None)  # import fails as if it were not installed
    result = run(url)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"Error: {message}\n")


def test_a_wrong_credential_is_one_line_and_no_secret(bucket, monkeypatch):
    monkeypatch.setattr(moto_settings, "INITIAL_NO_AUTH_ACTION_COUNT", 0)  # the server checks every request's credential
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wr0ng-s3cr3t")
    s3fs.S3FileSystem.clear_instance_cache()
    result = run(f"{bucket}/logs/")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith("Error: s3://lake/logs/: cannot read: ") and result.stderr.count("\n") == 1, result.stderr
    assert "wr0ng-s3cr3t" not in result.stderr and CREDENTIALS["AWS_SECRET_ACCESS_KEY"] not in result.stderr


def test_a_url_is_shown_without_its_password_or_token():
    assert logs.shown("https://reader:pa55@host.example/logs/a.jsonl?X-Amz-Signature=abc") == "https://host.example/logs/a.jsonl"
    assert logs.shown("s3://lake/logs/a.jsonl") == "s3://lake/logs/a.jsonl"
    assert logs.shown("logs/a?.jsonl") == "logs/a?.jsonl"  # a path is no URL


def test_the_dask_engine_reads_the_urls_on_its_workers(bucket):
    """The workers of a local cluster, started here, reach the bucket with the environment's credentials as the client does."""
    local = run("logs")
    remote = run("--engine", "dask", f"{bucket}/logs/")
    assert renamed(remote, f"{bucket}/") == renamed(local, "")
