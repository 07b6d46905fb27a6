"""Keeping secrets out of cassettes, and nothing else: every string written is scrubbed first.

Each secret becomes a stable placeholder, ``<redacted:`` + 12 hex digits + ``>``, the start of
HMAC-SHA256 of the secret under a key (:func:`placeholder_for`). The same secret gives the same
placeholder in every run and cassette recorded with the same key, so a request that carried it
still matches its recording: ``mcptest serve`` redacts an incoming request with
:func:`redactor` before matching, ``mcptest verify`` redacts the new answers before comparing.

The key (:func:`redaction_key`) is ``MCPTEST_REDACT_KEY`` when set (16 characters or more: set
the same value where a project is recorded, served and verified, CI included, and placeholders
agree across machines); else a random key made once per user, ``$XDG_CONFIG_HOME/mcptest/
redact.key`` (``~/.config/...``, mode 0600), so recordings of a project on one machine agree. It
is never written next to the secrets: whoever holds the key can test guesses of a short password
against its placeholder. A run records only ``meta.redaction_key_id``, a hash naming the key
without revealing it. A :class:`Redactor` built without a key (error messages) writes
``<redacted>``.

What is a secret:

- a token of a well-known shape anywhere in a string (the published rules of gitleaks,
  detect-secrets and GitHub secret scanning: ``ghp_``, ``github_pat_``, AWS ``AKIA``, OpenAI
  ``sk-``/``sk-proj-``, Anthropic ``sk-ant-``, Slack, Stripe, Google ``AIza``, GitLab, npm, PyPI,
  SendGrid, Hugging Face, JWTs, private-key blocks, ...); the password of a URL
  (``scheme://user:PASSWORD@host``), a secret query parameter (``?access_token=...``), the
  credential of an ``Authorization`` value (``Bearer ...``, ``Basic ...``);
- a value assigned to a name of a secret in text: ``.env`` (``DB_PASSWORD=...``), YAML
  (``password: ...``), INI and TOML (``aws_secret_access_key = ...``), code
  (``SECRET_KEY='...'``), JSON (``"api_key": "..."``, also in a JSON text inside a JSON
  string), a ``.netrc`` ``password``, the values of a ``Cookie:`` header (the first of a
  ``Set-Cookie:``);
- the value of any object key named for a secret, whatever its type;
- the values of environment variables named for a secret (``OPENAI_API_KEY``, ``DB_PASSWORD``)
  and the password of any URL in the environment, also JSON-escaped;
- what the user's own regular expressions match.

What is not: a name is a secret's by its words, not by a substring (``token_count``,
``max_tokens``, ``primary_key``, ``GIT_AUTHOR_NAME``); cursors and progress tokens
(``nextCursor``, ``next_page_token``, ``progressToken``) and identifiers (``sessionId``,
``taskId``) are not; an environment value that names an existing file or folder (``PWD``, a
``GOOGLE_APPLICATION_CREDENTIALS`` path) is a path; a bare value that reads as code
(``password=args.password``, ``token = token``) is a reference. Measured on a labelled corpus
(``tests/data/secrets_corpus.json``) and on real catalogs, logs and traces by
``benchmarks/bench_redact.py``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets as random_bytes
from typing import Iterable, Iterator, Mapping, Optional

REDACTED = "<redacted>"
MIN_SECRET_LENGTH = 6
KEY_VARIABLE = "MCPTEST_REDACT_KEY"
MIN_KEY_LENGTH = 16
PLACEHOLDER = re.compile(r"<redacted(?::[0-9a-f]{12})?>")

# Shapes from the published rules of the open secret scanners (gitleaks, detect-secrets,
# GitHub's secret scanning), each matched whole, each tried only on a string holding one of
# its literal parts (one regular expression of all of them cost 1.2 us a character).
_TOKEN_SHAPES = (
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b"),  # GitHub
    (("github_pat_",), r"\bgithub_pat_[A-Za-z0-9_]{22,255}"),                          # GitHub fine-grained
    (("glpat-",), r"\bglpat-[A-Za-z0-9_-]{20,}"),                                      # GitLab
    (("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "APKA", "AROA", "ASCA"),
     r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA|ASCA)[A-Z2-7]{16}\b"),  # AWS key id
    (("sk-ant-",), r"\bsk-ant-(?:api|admin|sid)\d\d-[A-Za-z0-9_-]{20,}"),               # Anthropic
    (("sk-",), r"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}"),                 # OpenAI, scoped
    (("sk-",), r"\bsk-[A-Za-z0-9]{20,}(?:T3BlbkFJ[A-Za-z0-9]{20,})?\b"),                # OpenAI, legacy
    (("xox",), r"\bxox[abposre]-[0-9A-Za-z-]{10,}"),                                   # Slack
    (("xapp-",), r"\bxapp-\d-[A-Za-z0-9-]{10,}"),                                      # Slack app
    (("hooks.slack.com",), r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+"),
    (("k_live_", "k_test_"), r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}"),                # Stripe
    (("AIza",), r"\bAIza[0-9A-Za-z_-]{35}"),                                           # Google API key
    (("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"),                                           # npm
    (("pypi-",), r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{20,}"),                          # PyPI
    (("SG.",), r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),                          # SendGrid
    (("hf_",), r"\bhf_[A-Za-z0-9]{30,}\b"),                                            # Hugging Face
    (("eyJ",), r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),      # JWT
    (("SK",), r"\bSK[0-9a-f]{32}\b"),                                                  # Twilio
    (("key-",), r"\bkey-[0-9a-f]{32}\b"),                                              # Mailgun
    ((":AA",), r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b"),                                   # Telegram bot
    (("_v1_",), r"\bdo[opr]_v1_[a-f0-9]{64}\b"),                                       # DigitalOcean
    (("shp",), r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),                             # Shopify
    (("AccountKey=",), r"AccountKey=[A-Za-z0-9+/]{40,}={0,2}"),                         # Azure storage
    (("PRIVATE KEY",), r"-----BEGIN[A-Z ]{0,20} PRIVATE KEY( BLOCK)?-----(?:.|\n)*?"
                       r"(?:-----END[A-Z ]{0,20} PRIVATE KEY( BLOCK)?-----|\Z)"),
)
_LONG_RUN = re.compile(r"[\w.:+/=-]{20,}")
TOKENS = tuple((parts, re.compile(shape)) for parts, shape in _TOKEN_SHAPES)
# The credential after a scheme: 12 characters or more that no word has (a digit, a base64
# sign, a dot inside, a capital after a small letter), so "a basic example of token
# counting" or "the bearer of good news" stays.
_SCHEME = r"(?:[Bb]earer|BEARER|[Bb]asic|BASIC|[Tt]oken|[Dd]igest|[Bb]ot)"
CREDENTIAL = re.compile(rf"\b{_SCHEME}\s+([A-Za-z0-9._~+/-]{{12,}}=*)")
_NOT_A_WORD = re.compile(r"[0-9+/=_~]|[a-z][A-Z]|\.(?=.)")
HEADER = re.compile(r"(?i)\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic|token|digest|bot)\s+)?"
                    r"(?!<redacted)([^\s\"',;]{6,})")
URL_PASSWORD = re.compile(r"(://[^/\s:@\"'<>]+:)([^/\s@\"'<>]+)(?=@)")
QUERY_SECRET = re.compile(r"(?i)[?&;](?:access_token|refresh_token|id_token|token|api[_-]?key|apikey|key|secret|"
                          r"client_secret|password|passwd|auth|sig|signature|x-amz-signature|x-amz-security-token)="
                          r"([^&#\s\"'<>]+)")
# NAME = VALUE, NAME: VALUE, "NAME": "VALUE" (.env, YAML, INI, TOML, code, JSON); the name is
# judged by secret_name, the value by _assigned.
ASSIGNMENT = re.compile(r"""(?<![\w.\\-])(["']?)([A-Za-z_][\w.-]{0,79})\1[ \t]*(?::=|[:=])[ \t]*"""
                        r"""(?:"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)'|([^\s"'`,;#(){}\[\]<>]+))""")
_MAY_ASSIGN = re.compile("pass|pwd|secret|token|key|auth|credential|sid|pat|private")  # in the text lowercased
NETRC = re.compile(r"\b(?:machine\s+\S+|default)(?:\s+(?:login|account|port)\s+\S+)*\s+password\s+(\S+)")
COOKIE = re.compile(r"(?i)\b(set-)?cookie:[ \t]*([^\r\n\"]*)")
_COOKIE_PAIR = re.compile(r"[^=;\s]+=([^;\s]*)")
# A bare value that reads as code or a word, not a secret: a lowercase word (a variable, a type,
# "required"), a dotted name (args.password, os.environ), a constant's name (DEFAULT_PASSWORD).
_REFERENCE = re.compile(r"[a-z_]+|[A-Za-z_]\w*(?:\.\w+)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_NOT_VALUES = {"none", "null", "nil", "true", "false", "undefined", "string", "str", "required", "optional"}
_NOT_A_VALUE_START = ("$", "{{", "%(", "<", "*", "&", "!", "|", ">", "~")  # a variable, template, alias, block

# Words of a name: snake_case, kebab-case, SCREAMING_CASE and camelCase alike.
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_ALWAYS = {"password", "passwd", "pwd", "passphrase", "secret", "secrets", "credential", "credentials",
           "authorization", "apikey", "cookie", "cookies", "privatekey"}
_KEY_QUALIFIERS = {"api", "access", "secret", "private", "client", "auth", "signing", "encryption", "master",
                   "license", "account", "subscription", "service", "admin", "app", "consumer", "session",
                   "webhook", "sas", "shared", "x"}
_NOT_TOKEN = {"page", "next", "continuation", "cursor", "sync", "csrf", "max", "prev", "previous", "pagination",
              "progress"}
_NOT_ALWAYS_AFTER = {"min", "max", "length", "count", "policy", "hint", "reset", "rules", "strength", "type",
                     "name", "santa", "file", "path", "manager", "expiry", "expires", "changed", "required",
                     "mode", "dir", "field", "label", "prompt"}
_NOT_PASS = {"first", "second", "third", "last", "next", "one", "two", "single", "multi", "build", "test", "by",
             "boarding", "bus", "day", "season", "free", "hall", "mountain", "high", "low", "band", "render"}
# Where a key names a parameter, not a secret: a tool's schemas, an elicitation's form.
_SCHEMA_KEYS = frozenset({"inputSchema", "outputSchema", "input_schema", "output_schema", "requestedSchema"})
_NESTING = 4  # JSON texts inside JSON strings, looked into this deep


def secret_name(name: str) -> bool:
    """Whether a key or variable named ``name`` holds a secret, judged by its words."""
    words = [w.lower() for w in _WORDS.findall(name)]
    if not words:
        return False
    # one word that ends in a password (PGPASSWORD, HTPASSWD), read as the password it names
    words = [("password" if w.endswith(("password", "passwd")) and w not in _ALWAYS else w) for w in words]
    if words[-1] == "pass" and len(words) > 1 and words[-2] not in _NOT_PASS:  # DB_PASS, SMTP_PASS
        return True
    joined = "".join(words)
    if joined in ("xapikey", "apikey", "xauthtoken", "setcookie", "pat", "token", "sid"):
        return True
    last = words[-1]
    if last in _ALWAYS or (words[-2:] == ["api", "key"]):
        return True
    if any(w in _ALWAYS for w in words[:-1]) and last not in _NOT_ALWAYS_AFTER:
        return True
    if last in ("token", "pat", "sid"):
        return not (len(words) > 1 and words[-2] in _NOT_TOKEN)
    if last == "key" and len(words) > 1:
        return words[-2] in _KEY_QUALIFIERS or (len(words) > 2 and words[-3] in _KEY_QUALIFIERS)
    return False


# -- the placeholder and its key ----------------------------------------------------------------


def placeholder_for(secret: str, key: Optional[bytes]) -> str:
    """What ``secret`` is written as: ``<redacted:`` + the first 12 hex digits of its
    HMAC-SHA256 under ``key`` + ``>`` (``<redacted>`` without a key). The same secret and key
    always give the same placeholder; without the key it says nothing of the secret."""
    if key is None:
        return REDACTED
    digest = hmac.new(key, secret.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()
    return f"<redacted:{digest[:12]}>"


def key_id(key: bytes) -> str:
    """A name for ``key`` that reveals nothing of it, kept in each run it redacted, so that a
    replay that finds other placeholders can say the recording used another key."""
    return hmac.new(key, b"mcptest redaction key id", hashlib.sha256).hexdigest()[:8]


def key_file(environ: Optional[Mapping[str, str]] = None) -> str:
    """Where this user's redaction key is kept: ``$XDG_CONFIG_HOME/mcptest/redact.key``."""
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "mcptest", "redact.key")


def redaction_key(environ: Optional[Mapping[str, str]] = None) -> bytes:
    """The key placeholders are made with: ``MCPTEST_REDACT_KEY``, else this user's key file
    (:func:`key_file`, made at first use). A key shorter than 16 characters, or a key file
    that cannot be read or made, is a ``ValueError`` that says what to do."""
    environ = os.environ if environ is None else environ
    given = environ.get(KEY_VARIABLE)
    if given is not None:
        if len(given) < MIN_KEY_LENGTH:
            raise ValueError(f"{KEY_VARIABLE} holds {len(given)} characters; a redaction key needs {MIN_KEY_LENGTH} "
                             "or more (python -c 'import secrets; print(secrets.token_hex(16))' makes one)")
        return given.encode("utf-8")
    path = key_file(environ)
    try:
        with open(path, "rb") as fh:
            key = fh.read().strip()
    except FileNotFoundError:
        key = _made_key(path)
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the redaction key: {exc.strerror or exc}; set {KEY_VARIABLE} "
                         "instead") from None
    if len(key) < MIN_KEY_LENGTH:
        raise ValueError(f"{path}: the redaction key holds {len(key)} characters, expected {MIN_KEY_LENGTH} or "
                         f"more; delete the file to have a new one made, or set {KEY_VARIABLE}")
    return key


def _made_key(path: str) -> bytes:
    """A new random key at ``path``. It is written whole to a file of its own, then linked
    into place (a link never replaces a file), so two recorders starting together end up
    with the same key: the one that came second reads the first one's."""
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        key = random_bytes.token_hex(32).encode("ascii")
        with os.fdopen(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as fh:
            fh.write(key + b"\n")
        try:
            os.link(temporary, path)
        except FileExistsError:
            with open(path, "rb") as fh:
                key = fh.read().strip()
        finally:
            os.unlink(temporary)
    except OSError as exc:
        raise ValueError(f"{path}: cannot make the redaction key: {exc.strerror or exc}; set {KEY_VARIABLE} to "
                         f"a secret of {MIN_KEY_LENGTH} characters or more instead") from None
    return key


# -- finding secrets in a string ----------------------------------------------------------------


def _escaped(text: str) -> str:
    """``text`` as it reads inside a JSON string."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _assigned(value: str, quoted: bool, after: str) -> bool:
    """Whether ``value``, assigned to a secret's name in text, is the secret itself: not
    empty, not a variable or template (``$DB_PASSWORD``, ``{{ vault }}``), not already a
    placeholder or a mask (``****``), not a null or a type; and, bare, not code or a word."""
    if not value or value.startswith(_NOT_A_VALUE_START) or len(set(value)) == 1 or value.lower() in _NOT_VALUES:
        return False
    if quoted:
        return True
    return after not in ("(", "[") and not _REFERENCE.fullmatch(value)


def _assignments(text: str) -> Iterator[tuple]:
    for match in ASSIGNMENT.finditer(text):
        name = match.group(2)
        words = name.lower()
        if "cookie" in words or "authorization" in words or not secret_name(name):
            continue  # a Cookie: or Authorization: header has rules of its own
        for group, quoted in ((3, True), (4, True), (5, False)):
            value = match.group(group)
            if value is not None:
                if _assigned(value, quoted, text[match.end():match.end() + 1]):
                    secret = _json_string(value) if group == 3 else value
                    yield match.start(group), match.end(group), secret
                break


def _json_string(inner: str) -> str:
    """The string a JSON string literal's inside stands for (itself when it is none)."""
    try:
        return json.loads(f'"{inner}"')
    except ValueError:
        return inner


def _cookies(text: str) -> Iterator[tuple]:
    for match in COOKIE.finditer(text):
        pairs = _COOKIE_PAIR.finditer(match.group(2))
        offset = match.start(2)
        for pair in ([next(pairs, None)] if match.group(1) else pairs):  # Set-Cookie: its first pair only
            if pair is not None and pair.group(1) and not pair.group(1).startswith("<redacted"):
                yield offset + pair.start(1), offset + pair.end(1), pair.group(1)


def _nested_leaves(value, depth: int = 0) -> Iterator[str]:
    """The secrets in a parsed JSON value: the strings under keys named for a secret, and
    those of the JSON texts held in its strings."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _SCHEMA_KEYS:
                continue
            yield from (_leaf_strings(item) if secret_name(str(key)) else _nested_leaves(item, depth))
    elif isinstance(value, list):
        for item in value:
            yield from _nested_leaves(item, depth)
    elif isinstance(value, str) and depth < _NESTING and value.lstrip()[:1] in ("{", "["):
        try:
            yield from _nested_leaves(json.loads(value), depth + 1)
        except ValueError:
            pass


def _leaf_strings(value) -> Iterator[str]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaf_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaf_strings(item)
    elif isinstance(value, str) and value and not value.startswith("<redacted"):
        yield value


def _nested(text: str) -> Iterator[tuple]:
    """Secrets of a JSON text: under a key named for one, whatever it holds (an object of
    credentials), and in the JSON texts its strings hold (``"{\\"password\\": ...}"``). The
    text is parsed, and each secret found is looked for at each depth of escaping, quotes
    included, so only whole string values are replaced and the text keeps its layout."""
    try:
        parsed = json.loads(text)
    except ValueError:
        return
    for secret in set(_nested_leaves(parsed)):
        quote, body = '"', _escaped(secret)
        for _ in range(_NESTING):
            needle = quote + body + quote
            start = text.find(needle)
            while start >= 0:
                yield start + len(quote), start + len(needle) - len(quote), secret
                start = text.find(needle, start + len(needle))
            quote, body = _escaped(quote), _escaped(body)


def _tokens(text: str) -> Iterator[tuple]:
    """The tokens of a well-known shape; each shape is tried only on a string holding one of
    its literal parts, and only a string with a run of 20 (every shape but a key block's)."""
    if len(text) >= 20 and (_LONG_RUN.search(text) or "PRIVATE KEY" in text):
        for parts, shape in TOKENS:
            if any(part in text for part in parts):
                yield from ((m.start(), m.end(), m.group()) for m in shape.finditer(text))


def _groups(pattern: re.Pattern, text: str, group: int = 1) -> Iterator[tuple]:
    return ((m.start(group), m.end(group), m.group(group)) for m in pattern.finditer(text))


def _credentials(text: str) -> Iterator[tuple]:
    return ((s, e, v) for s, e, v in _groups(CREDENTIAL, text) if _NOT_A_WORD.search(v))


def _spans(text: str) -> Iterator[tuple]:
    """``(start, end, secret)`` of each secret the built-in rules find in ``text``; each rule
    runs only on a string holding what it looks for."""
    yield from _tokens(text)
    if "://" in text:
        yield from _groups(URL_PASSWORD, text, 2)
    if "=" in text:
        yield from _groups(QUERY_SECRET, text)
    if "earer" in text or "asic" in text or "oken" in text or "EARER" in text or "ASIC" in text \
            or "igest" in text or "Bot" in text:
        yield from _credentials(text)
    if "uthorization" in text or "UTHORIZATION" in text:
        yield from _groups(HEADER, text)
    may_assign = ("=" in text or ":" in text) and _MAY_ASSIGN.search(text.lower()) is not None
    if may_assign:
        yield from _assignments(text)
    if "password" in text and ("machine" in text or "default" in text):
        yield from _groups(NETRC, text)
    if "ookie" in text or "OOKIE" in text:
        yield from _cookies(text)
    if text.lstrip()[:1] in ("{", "[") and ('\\"' in text or may_assign):
        yield from _nested(text)


def _merged(text: str, spans: list) -> list:
    """The spans in order, overlapping ones joined (a secret found by two rules is replaced
    once, and no part of either is left), those inside a placeholder already there dropped."""
    kept = [(m.start(), m.end()) for m in PLACEHOLDER.finditer(text)] if "<redacted" in text else []
    out: list = []
    for start, end, secret in sorted(spans, key=lambda s: (s[0], -s[1])):
        if start >= end or any(a < end and start < b for a, b in kept):
            continue
        if out and start < out[-1][1]:
            first, last, known = out[-1]
            if end > last:
                out[-1] = (first, end, text[first:end])
            continue
        out.append((start, end, secret))
    return out


class Redactor:
    """Replaces secrets in every string of a JSON value by their placeholders (module doc).
    Build one for a recording with :func:`redactor`; ``key`` None writes ``<redacted>``."""

    def __init__(self, secrets: Iterable[str] = (), patterns: Iterable[re.Pattern] = (),
                 key: Optional[bytes] = None):
        self.known = sorted({s for s in secrets if isinstance(s, str) and len(s) >= MIN_SECRET_LENGTH})
        # Each known secret also JSON-escaped (once and twice: a secret with " or \ inside a
        # result that holds JSON), each form standing for the secret itself.
        self._forms = {}
        for secret in self.known:
            once = _escaped(secret)
            for form in (secret, once, _escaped(once)):
                self._forms.setdefault(form, secret)
        # Longest first, so that a secret containing another is replaced whole.
        forms = sorted(self._forms, key=lambda s: (-len(s), s))
        self._literal = re.compile("|".join(map(re.escape, forms))) if forms else None
        self.patterns = list(patterns)
        self.key = key

    def placeholder(self, secret: str) -> str:
        return placeholder_for(secret, self.key)

    def text(self, value: str) -> str:
        spans = list(_spans(value))
        if self._literal is not None:
            spans += [(m.start(), m.end(), self._forms[m.group()]) for m in self._literal.finditer(value)]
        for pattern in self.patterns:
            spans += [(m.start(), m.end(), m.group()) for m in pattern.finditer(value)]
        if not spans:
            return value
        out, cursor = [], 0
        for start, end, secret in _merged(value, spans):
            out += [value[cursor:start], self.placeholder(secret)]
            cursor = end
        out.append(value[cursor:])
        return "".join(out)

    def value(self, value, schema: bool = False):
        """A copy of a JSON value with every secret replaced (keys included). Inside a tool's
        schema (``schema``) a key names a parameter, not a secret: a login tool's
        ``password: {type: string}`` is kept, only its strings are scrubbed."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                new_key = self.text(key) if isinstance(key, str) else key
                if schema or key in _SCHEMA_KEYS:
                    out[new_key] = self.value(item, schema=True)
                elif isinstance(key, str) and secret_name(key):
                    out[new_key] = self.hidden(item)
                else:
                    out[new_key] = self.value(item)
            return out
        if isinstance(value, list):
            return [self.value(item, schema) for item in value]
        return value

    def hidden(self, value):
        """The value of a key named for a secret: every string and number in it replaced
        (an empty string, a boolean, null or a placeholder says nothing and is kept)."""
        if isinstance(value, dict):
            return {key: self.hidden(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.hidden(item) for item in value]
        if isinstance(value, bool) or value is None or value == "":
            return value
        if isinstance(value, str):
            return value if PLACEHOLDER.fullmatch(value) else self.placeholder(value)
        return self.placeholder(json.dumps(value)) if isinstance(value, (int, float)) else value


def compile_patterns(patterns: Iterable[str], where: str = "--mcptest-redact") -> list[re.Pattern]:
    """The user's patterns, compiled; a bad one raises ``ValueError`` naming it and ``where``."""
    out = []
    for pattern in patterns:
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"{where}: {pattern!r} is not a valid regular expression: {exc}") from None
        if compiled.match(""):
            raise ValueError(f"{where}: {pattern!r} matches the empty string; it would redact nothing useful")
        out.append(compiled)
    return out


def secret_env_values(environ: Optional[Mapping[str, str]] = None) -> list[str]:
    """Values of the environment variables named for a secret, and the password of every
    URL in the environment (``DATABASE_URL=postgres://app:PASSWORD@db/x``). A value that
    names an existing file or folder is a path, not a secret (``PWD``, ``OLDPWD``, a
    credentials file's path): redacting it would hide every path under it."""
    environ = os.environ if environ is None else environ
    out = [value for name, value in environ.items() if value and secret_name(name) and not _a_path(value)]
    for value in environ.values():
        if "://" in value:
            out += [m.group(2) for m in URL_PASSWORD.finditer(value)]
    return out


def _a_path(value: str) -> bool:
    return os.path.isabs(value) and os.path.exists(value)


def redactor(patterns: Iterable[str] = (), environ: Optional[Mapping[str, str]] = None,
             where: str = "--mcptest-redact", key: Optional[bytes] = None) -> Redactor:
    """The redactor for a recording, and for matching against one: this environment's
    secrets plus the user's patterns, with ``key`` or else :func:`redaction_key`'s. Bad
    patterns or an unusable key raise ``ValueError`` saying why."""
    compiled = compile_patterns(patterns, where)
    return Redactor(secret_env_values(environ), compiled, redaction_key() if key is None else key)
