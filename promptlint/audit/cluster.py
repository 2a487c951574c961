"""The dask engine of `promptlint audit`: each split of a log (logs.Split) is audited on a worker of a Dask cluster.

A small log is one split, a large one several (of logs.SPLIT_BYTES each, about),
so the workers share a big file too. ``tallies`` yields the tally of each split as
the cluster finishes it, in whatever order: tallies merge exactly whatever the
order (run.Tally), so the report is the local engine's, byte for byte. A worker
reads its split itself (the logs must be at the same paths on the workers, a
shared or mounted file system) and sends back only its tally: a few counts and
the worst examples of each rule.

A worker that dies mid-split takes only that split's unfinished work with it: the
scheduler runs the split again on another worker, or on the one its nanny starts
in place of the only one (up to ``distributed.scheduler.allowed-failures``), and
a split's tally is counted once, when its task finishes. Each task carries all it
needs, so the scheduler can always run it again; when it gives up, or the
connection is lost, the audit ends with one ClusterError line naming the split. The cluster is joined at ``scheduler``, or started here (a
LocalCluster of ``jobs`` worker processes of one thread each: linting holds the
GIL) and closed at the end.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from concurrent.futures import CancelledError

from .logs import Split, is_url, require, said
from .run import Tally, Work, audit_split

# An exception in a task (a log gone missing on a network file system) is tried again this often.
RETRIES = 2


class ClusterError(Exception):
    """The cluster cannot be reached, or it gave up on a split of a log; the message says which."""


def _client(stack: contextlib.ExitStack, jobs: int, scheduler: str | None):
    require("distributed", "dask", "--engine dask")
    from distributed import Client, LocalCluster

    if scheduler:
        try:
            return stack.enter_context(Client(scheduler))
        except (OSError, TimeoutError) as exc:
            raise ClusterError(f"cannot join the Dask scheduler at {scheduler}: {said(exc)}") from None
    cluster = stack.enter_context(LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.ERROR))
    return stack.enter_context(Client(cluster))


def tallies(work: Work, logs: list[str], splits: list[Split], jobs: int, scheduler: str | None) -> Iterator[Tally]:
    """The tally of each split of the logs (paths or URLs; ``work`` names them), as the cluster finishes them."""
    with contextlib.ExitStack() as stack:
        client = _client(stack, jobs, scheduler)
        from distributed import as_completed

        # Named as given in the report, read at the same absolute paths (or URLs) on the workers.
        paths = [name if is_url(name) else os.path.abspath(name) for name in logs]
        # The config travels inside each task (some 50 kB): data scattered once lives on the
        # workers alone, and is lost with the only worker that holds it, which no retry brings back.
        futures = client.map(audit_split, splits, [paths[split.log] for split in splits], work=work, pure=False, retries=RETRIES)
        names = {future.key: f"{work.names[split.log]} (bytes {split.start}-{split.end})" for future, split in zip(futures, splits)}
        done = as_completed(futures)
        del futures  # each result is released once counted
        for future in done:
            tally = _result(future, names[future.key])
            future.release()
            yield tally


def _result(future, name: str) -> Tally:
    """A split's tally; ClusterError, one line, for whatever the cluster did to it (a log that cannot be read is OSError, as in the local engine)."""
    from distributed import KilledWorker
    from distributed.comm import CommClosedError

    try:
        return future.result()
    except KilledWorker:
        raise ClusterError(f"the cluster gave up on {name}: each worker that ran it died (distributed.scheduler.allowed-failures)") from None
    except CancelledError as exc:
        raise ClusterError(f"the cluster lost the task of {name}: {said(exc) or 'cancelled'}") from None
    except (CommClosedError, TimeoutError) as exc:
        raise ClusterError(f"lost the connection to the cluster while it read {name}: {said(exc)}") from None
    except OSError:
        raise
    except Exception as exc:  # raised on a worker: its traceback is in the worker's log
        raise ClusterError(f"{name} failed on the cluster: {type(exc).__name__}: {said(exc)}") from None
