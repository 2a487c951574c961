"""What an application sends to a model, captured on the wire and linted: the capture of
requests from HTTP clients (``intercept``), the library's ``capture()`` (``capture``), the
JSONL log ``promptlint audit`` reads (``logfile``) and the production hook that samples to it
(``hook``)."""
