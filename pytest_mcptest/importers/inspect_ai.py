"""inspect_ai eval logs (``.json``, or ``.eval``: the same log as a zip of JSON files) -> cassette v1.

Read without installing inspect_ai: a ``.json`` log is one object with ``eval`` (the task and
model) and ``samples``; a ``.eval`` log is a zip holding ``header.json`` (the same fields but
``samples``) and one ``samples/<id>_epoch_<n>.json`` per sample and epoch, which
:func:`eval_zip_text` gathers into the ``.json`` form before it is imported.

Each sample and epoch is one run: ``task`` is the sample's ``id``, ``trial`` its ``epoch``. Its
``messages`` are OpenAI-shaped: an assistant message's ``tool_calls`` (``{id, function: <name>,
arguments: {...}}``) are its calls, and the ``tool`` message with that ``tool_call_id`` is the
result, failed when it carries an ``error`` (``{type, message}``: a timeout, a parsing error, a
refused approval, ...). Tokens are the sample's ``model_usage`` (``input_tokens``,
``output_tokens``, ``total_tokens``) summed over its models; the run's ``meta`` keeps the model,
the scores' values (``meta.scores.<scorer>``) and the sample's error message. The tools the model
was offered (the ``tools`` of the sample's ``model`` events) are the catalog.
"""

from __future__ import annotations

import io
import json
import zipfile

from ..formats.cassette import Cassette
from ..engine.trace import Run, Tokens, message_text
from ..engine.values import type_name
from ..errors import InputError
from ..formats.files import strict_json
from .common import Catalog, Loc, Pending, Source, make_cassette, make_run, read_usage, text_result

KIND = "inspect-ai"
ZIP_MAGIC = b"PK\x03\x04"
_USAGE = (("input_tokens",), ("output_tokens",), ("total_tokens",))


def eval_zip_text(path: str, data: bytes) -> str:
    """The ``.json`` form of a ``.eval`` log: its header with the samples put under ``samples``
    in the order the zip lists them. A member that is not JSON is named in the error."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = archive.namelist()
        if "header.json" not in names:
            raise InputError(path, "a zip without header.json: expected an inspect_ai .eval log")
        log = _member(path, archive, "header.json")
        if not isinstance(log, dict):
            raise InputError(path, f"header.json must be an object, found {type_name(log)}")
        log["samples"] = [_member(path, archive, name) for name in names
                          if name.startswith("samples/") and name.endswith(".json")]
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError) as exc:
        raise InputError(path, f"cannot read the zip: {exc}") from None
    return json.dumps(log, ensure_ascii=False)


def _member(path: str, archive: zipfile.ZipFile, name: str):
    try:
        return strict_json(archive.read(name).decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(path, f"{name} in the zip is not JSON: {exc}") from None


def import_inspect_ai(path: str, text: str) -> Cassette:
    """Read an inspect_ai eval log (its ``.json`` form) and return a cassette."""
    src = Source(path, text)
    _shape, records = src.records()
    log, loc = records[0]
    src.need_dict(log, loc, "an eval log")
    if not isinstance(log.get("eval"), dict) or "samples" not in log:
        raise src.fail(loc, "expected an inspect_ai eval log: an object with 'eval' and 'samples' "
                       "(a log read with header_only has no samples)")
    model = log["eval"].get("model")
    catalog = Catalog()
    runs = []
    samples = src.need_list(log["samples"], loc / "samples", "'samples'")
    for i, sample in enumerate(samples):
        here = loc / "samples" / i
        src.need_dict(sample, here, "a sample")
        runs.append(_run(src, sample, here, model, catalog))
    return make_cassette(KIND, path, runs, catalog)


def _run(src: Source, sample: dict, loc: Loc, model, catalog: Catalog) -> Run:
    calls: list = []
    pending = Pending()
    unmatched: list = []
    messages = src.need_list(sample.get("messages", []), loc / "messages", "'messages'")
    assistant = -1
    for j, msg in enumerate(messages):
        mloc = loc / "messages" / j
        src.need_dict(msg, mloc, "a message")
        role = src.need_name(msg.get("role"), mloc / "role", "a message's 'role'")
        if role == "assistant":
            assistant += 1
            for k, tc in enumerate(src.need_list(msg.get("tool_calls") or [], mloc / "tool_calls", "'tool_calls'")):
                tloc = mloc / "tool_calls" / k
                src.need_dict(tc, tloc, "a tool call")
                call: dict = {"name": src.need_name(tc.get("function"), tloc / "function", "a tool call's 'function'")}
                if tc.get("id") is not None:
                    call["id"] = src.opt_str(tc["id"], tloc / "id", "a tool call's 'id'")
                if "arguments" in tc:
                    call["args"] = tc["arguments"]
                if tc.get("parse_error") is not None:  # the model's arguments were not JSON
                    call["args_invalid_json"] = True
                call["error"] = False
                call["turn"] = assistant
                calls.append(call)
                pending.add(call)
        elif role == "tool":
            call_id = src.opt_str(msg.get("tool_call_id"), mloc / "tool_call_id", "'tool_call_id'")
            name = msg.get("function") if isinstance(msg.get("function"), str) else None
            call = pending.take(call_id, name)
            if call is None:
                unmatched.append(call_id or name or "?")
                continue
            error = msg.get("error")
            content = msg.get("content")
            if error is not None:
                src.need_dict(error, mloc / "error", "a tool message's 'error'")
                if not message_text(content).strip() and isinstance(error.get("message"), str):
                    content = error["message"]
            call["error"] = error is not None
            call["result"] = text_result(content, error is not None)
    tokens = Tokens()
    usage = sample.get("model_usage") or {}
    src.need_dict(usage, loc / "model_usage", "'model_usage'")
    for name, per_model in usage.items():
        tokens += read_usage(src, per_model, loc / "model_usage" / name, *_USAGE)
    _tools(src, sample, loc, catalog)
    extra: dict = {"task": sample.get("id"), "trial": sample.get("epoch"), "meta": _meta(sample, usage, model)}
    extra = {k: v for k, v in extra.items() if v is not None and v != {}}
    if unmatched:
        extra["unmatched_results"] = unmatched
    return make_run(calls, messages, tokens, extra)


def _meta(sample: dict, usage: dict, model) -> dict:
    meta: dict = {}
    models = list(usage) or ([model] if isinstance(model, str) else [])
    if models:
        meta["model"] = models[0]
    scores = sample.get("scores")
    if isinstance(scores, dict):
        values = {name: score.get("value") for name, score in scores.items() if isinstance(score, dict)}
        if values:
            meta["scores"] = values
    error = sample.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        meta["error"] = error["message"]
    return meta


def _tools(src: Source, sample: dict, loc: Loc, catalog: Catalog) -> None:
    """The tools offered to the model, from the sample's ``model`` events."""
    events = sample.get("events")
    if not isinstance(events, list):
        return
    for e, event in enumerate(events):
        if isinstance(event, dict) and event.get("event") == "model" and isinstance(event.get("tools"), list):
            for t, tool in enumerate(event["tools"]):
                catalog.add_one(src, tool, loc / "events" / e / "tools" / t)
