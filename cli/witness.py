"""``bxb witness``: a witness of tournament roots (c2sp.org/tlog-witness), run by someone other
than the organiser: ``bxb witness key`` prints its cosignature key to hand to organisers,
``bxb witness serve`` answers ``add-checkpoint`` over HTTP (``replay/evidence/witness.py``
decides). Also ``bxb witness log-key``: the key a log's checkpoints are signed with, as witnesses
and readers are given it."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from blowbyblow.cli.app import app, fail
from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.replay.evidence.notes import (
    COSIGNATURE_V1,
    NOTE_SIGNATURE,
    NoteError,
    check_name,
    parse_vkey,
    vkey,
)
from blowbyblow.replay.evidence.seals import default_key_dir, load_private_key, public_hex

if TYPE_CHECKING:  # imported when a witness is served
    from blowbyblow.replay.evidence.witness import Witness

witness_app = typer.Typer(
    help="A witness of tournament roots: it cosigns a root only when it extends the last one "
    "it cosigned of that log (C2SP tlog-witness).",
    no_args_is_help=True,
)
app.add_typer(witness_app, name="witness")


def _name(name: str, what: str) -> str:
    try:
        return check_name(name, what)
    except NoteError as e:
        fail(str(e))


def _key_file(key: Path | None) -> Path:
    return key or default_key_dir() / "witness.key"


def _public(key: Path | None) -> bytes:
    try:
        return bytes.fromhex(public_hex(load_private_key(_key_file(key))))
    except BlowByBlowError as e:
        fail(str(e))


@witness_app.command("key")
def cmd_witness_key(
    name: Annotated[str, typer.Argument(help="The witness's name, e.g. club.example/w1.")],
    key: Annotated[
        Path | None,
        typer.Option(
            "--key",
            help="The witness's private key (`bxb keys new --name witness`; default "
            f"{default_key_dir() / 'witness.key'}).",
        ),
    ] = None,
) -> None:
    """Print the witness's cosignature key (NAME+KEYID+BASE64): the line an organiser puts in
    a policy file (`witness KEY URL`) and a reader checks cosignatures with."""
    typer.echo(vkey(_name(name, "NAME"), COSIGNATURE_V1, _public(key)))


@witness_app.command("log-key")
def cmd_log_key(
    origin: Annotated[str, typer.Argument(help="The log's origin, e.g. spring-open.example/root.")],
    key: Annotated[
        Path | None,
        typer.Option(
            "--key",
            help=f"The organiser's signing key (default {default_key_dir() / 'judge.key'}).",
        ),
    ] = None,
) -> None:
    """Print the key a tournament's checkpoints are signed with (NAME+KEYID+BASE64): what a
    witness is told to trust (`bxb witness serve --log KEY`) and a reader checks with."""
    try:
        public = public_hex(load_private_key(key or default_key_dir() / "judge.key"))
    except BlowByBlowError as e:
        fail(str(e))
    typer.echo(vkey(_name(origin, "ORIGIN"), NOTE_SIGNATURE, bytes.fromhex(public)))


@witness_app.command("serve")
def cmd_witness_serve(  # noqa: PLR0913 - typer makes each parameter a command-line option
    name: Annotated[str, typer.Option("--name", help="The witness's name (as in its key).")],
    state: Annotated[
        Path,
        typer.Option("--state", help="Its state file: the last checkpoint cosigned of each log."),
    ],
    log: Annotated[
        list[str],
        typer.Option("--log", help="A log it witnesses: its key (`bxb witness log-key`)."),
    ],
    key: Annotated[
        Path | None,
        typer.Option(
            "--key", help=f"Its private key (default {default_key_dir() / 'witness.key'})."
        ),
    ] = None,
    host: Annotated[str, typer.Option("--host", help="Address to bind.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", help="Port to listen on (0: any free one, said at start).")
    ] = 8080,
) -> None:
    """Answer `POST /add-checkpoint` (C2SP tlog-witness) until stopped: cosign a checkpoint of
    a log it trusts only when the consistency proof from the last checkpoint it cosigned of that
    log holds; never two inconsistent ones."""
    from blowbyblow.replay.evidence.witness import Witness

    try:
        logs = [parse_vkey(k) for k in log]
    except NoteError as e:
        fail(f"--log: {e}")
    if any(v.kind != NOTE_SIGNATURE for v in logs):
        fail("--log: expected a log's key (`bxb witness log-key`), not a witness's")
    if not 0 <= port < 65536:
        fail(f"--port: expected 1 to 65535 (0: any free port), not {port}")
    try:
        witness = Witness(_name(name, "--name"), load_private_key(_key_file(key)), state, logs)
    except BlowByBlowError as e:
        fail(str(e))
    try:
        server = ThreadingHTTPServer((host, port), _handler(witness))
    except OSError as e:
        witness.close()
        fail(f"--host/--port: cannot listen on {host}:{port}: {e.strerror or e}", code=1)
    typer.echo(f"witness {name} on http://{host}:{server.server_port}/add-checkpoint", err=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        witness.close()


def _handler(witness: Witness) -> type[BaseHTTPRequestHandler]:
    from blowbyblow.replay.evidence.witness import MAX_REQUEST_BYTES

    class AddCheckpointHandler(BaseHTTPRequestHandler):
        timeout = 10  # a half-sent request is dropped, not waited for

        def do_POST(self) -> None:
            if self.path.rstrip("/") != "/add-checkpoint":
                self._answer(404, "text/plain", "only POST /add-checkpoint\n")
                return
            try:
                length = int(self.headers.get("Content-Length", ""))
            except ValueError:
                length = -1
            if not 0 <= length <= MAX_REQUEST_BYTES:
                self._answer(400, "text/plain", f"a body of 0 to {MAX_REQUEST_BYTES} bytes\n")
                return
            answer = witness.add_checkpoint(self.rfile.read(length))
            self._answer(answer.status, answer.content_type, answer.body)

        def _answer(self, status: int, content_type: str, body: str) -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            return  # the answers say what happened; no access log on stderr

    return AddCheckpointHandler
