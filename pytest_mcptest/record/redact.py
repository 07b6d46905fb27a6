"""Keeping secrets out of cassettes: every string written is scrubbed first.

Four sources of secrets, each replaced by ``"<redacted>"``:

- tokens of a well-known shape anywhere in a string: the formats the open secret scanners
  publish rules for (GitHub ``ghp_``/``github_pat_``, AWS ``AKIA``, OpenAI ``sk-``/``sk-proj-``,
  Anthropic ``sk-ant-``, Slack ``xox?-``, Stripe, Google ``AIza``, GitLab, npm, PyPI,
  SendGrid, Hugging Face, JWTs, private-key blocks, ...); the password of a URL
  (``scheme://user:PASSWORD@host``), a secret query parameter (``?access_token=...``)
  and the credential of an ``Authorization`` value (``Bearer ...``, ``Basic ...``);
- the value of any object key named for a secret (``authorization``, ``api_key``,
  ``x-api-key``, ``github_token``, ``X-Auth-Token``, ``db_password``,
  ``aws_secret_access_key``, ...), whatever its type (a number, a nested object), and of
  such a key inside a JSON text held in a string;
- the values of environment variables named for a secret (``OPENAI_API_KEY``,
  ``GITHUB_PAT``, ``DB_PASSWORD``, ...) and the password of any URL in the environment
  (``DATABASE_URL``), also in their JSON-escaped form (a secret with ``"`` or ``\\`` appears
  escaped in a result that holds JSON);
- the user's own regular expressions (``--mcptest-redact``, ``mcptest record --redact``,
  ``redact:`` in a suite's server entry): every match is replaced.

A name is a secret's by its words, not by a substring: ``GIT_AUTHOR_NAME``, ``token_count``,
``max_tokens`` and ``primary_key`` are not, so ordinary values are never scrubbed (which
would break exact-argument expectations); ``next_page_token`` is a cursor, not a secret.
Short environment values (under 6 characters, such as ``1``) are left alone. Measured on a
labelled corpus (``tests/data/secrets_corpus.json``, ``benchmarks/bench_redact.py``): every
positive caught, no negative touched.
"""

from __future__ import annotations

import json
import os
import re
from typing import Iterable, Mapping, Optional

REDACTED = "<redacted>"
MIN_SECRET_LENGTH = 6

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
CREDENTIAL = re.compile(rf"\b({_SCHEME}\s+)([A-Za-z0-9._~+/-]{{12,}}=*)")
_NOT_A_WORD = re.compile(r"[0-9+/=_~]|[a-z][A-Z]|\.(?=.)")
HEADER = re.compile(r"(?i)\b((?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic|token|digest|bot)\s+)?)"
                    r"(?!<redacted>)[^\s\"',;]{6,}")
URL_PASSWORD = re.compile(r"(://[^/\s:@\"'<>]+:)([^/\s@\"'<>]+)(?=@)")
QUERY_SECRET = re.compile(r"(?i)([?&;](?:access_token|refresh_token|id_token|token|api[_-]?key|apikey|key|secret|"
                          r"client_secret|password|passwd|auth|sig|signature|x-amz-signature|x-amz-security-token)=)"
                          r"[^&#\s\"'<>]+")
JSON_PAIR = re.compile(r'("((?:[^"\\]|\\.){1,80})"\s*:\s*)("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?)')

# Words of a name: snake_case, kebab-case, SCREAMING_CASE and camelCase alike.
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_ALWAYS = {"password", "passwd", "pwd", "passphrase", "secret", "secrets", "credential", "credentials",
           "authorization", "apikey", "cookie", "cookies", "privatekey"}
_LAST = {"token", "pat", "key", "sid"}  # a secret when the name ends with it, with the qualifiers below
_KEY_QUALIFIERS = {"api", "access", "secret", "private", "client", "auth", "signing", "encryption", "master",
                   "license", "account", "subscription", "service", "admin", "app", "consumer", "session",
                   "webhook", "sas", "shared", "x"}
_NOT_TOKEN = {"page", "next", "continuation", "cursor", "sync", "csrf", "max", "prev", "previous", "pagination"}
_NOT_ALWAYS_AFTER = {"min", "max", "length", "count", "policy", "hint", "reset", "rules", "strength", "type",
                     "name", "santa", "file", "path", "manager", "expiry", "expires", "changed", "required",
                     "mode", "dir", "field", "label", "prompt"}


_NOT_PASS = {"first", "second", "third", "last", "next", "one", "two", "single", "multi", "build", "test", "by",
             "boarding", "bus", "day", "season", "free", "hall", "mountain", "high", "low", "band", "render"}


_SCHEMA_KEYS = frozenset({"inputSchema", "outputSchema", "input_schema", "output_schema"})


def _credential(match: re.Match) -> str:
    return match.group(1) + REDACTED if _NOT_A_WORD.search(match.group(2)) else match.group(0)


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
    if joined in ("xapikey", "apikey", "xauthtoken", "setcookie", "sessionid", "pat", "token", "sid"):
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
    if last == "id" and len(words) > 1 and words[-2] == "session":
        return True
    return False


class Redactor:
    """Replaces secrets in every string of a JSON value. Build one with :func:`redactor`."""

    def __init__(self, secrets: Iterable[str] = (), patterns: Iterable[re.Pattern] = ()):
        known = {s for s in secrets if isinstance(s, str) and len(s) >= MIN_SECRET_LENGTH}
        # The JSON-escaped forms too (once and twice): a secret with " or \ inside a result that holds JSON.
        escaped = set()
        for secret in known:
            once = json.dumps(secret, ensure_ascii=False)[1:-1]
            escaped.update((once, json.dumps(once, ensure_ascii=False)[1:-1]))
        # Longest first, so that a secret containing another is replaced whole.
        self.secrets = sorted(known | escaped, key=lambda s: (-len(s), s))
        self.patterns = list(patterns)

    def text(self, value: str) -> str:
        for secret in self.secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        if len(value) >= 20 and (_LONG_RUN.search(value) or "PRIVATE KEY" in value):  # every shape but a key block is 20 long or more
            for parts, shape in TOKENS:
                for part in parts:
                    if part in value:
                        value = shape.sub(REDACTED, value)
                        break
        if "://" in value:
            value = URL_PASSWORD.sub(lambda m: m.group(1) + REDACTED, value)
        if "=" in value:
            value = QUERY_SECRET.sub(lambda m: m.group(1) + REDACTED, value)
        if "earer" in value or "asic" in value or "oken" in value or "EARER" in value or "ASIC" in value \
                or "igest" in value or "Bot" in value:
            value = CREDENTIAL.sub(_credential, value)
        if "uthorization" in value or "UTHORIZATION" in value:
            value = HEADER.sub(lambda m: m.group(1) + REDACTED, value)
        if '":' in value or '" :' in value:
            value = JSON_PAIR.sub(self._pair, value)
        for pattern in self.patterns:
            value = pattern.sub(REDACTED, value)
        return value

    @staticmethod
    def _pair(match: re.Match) -> str:
        """A ``"key": value`` pair inside a string (a JSON text a tool returned)."""
        if not secret_name(match.group(2)) or match.group(3) == f'"{REDACTED}"':
            return match.group(0)
        return f'{match.group(1)}"{REDACTED}"'

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
        (an empty string, a boolean or null says nothing and is kept)."""
        if isinstance(value, dict):
            return {key: self.hidden(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.hidden(item) for item in value]
        if isinstance(value, bool) or value is None or value == "":
            return value
        return REDACTED if isinstance(value, (str, int, float)) else value


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
    URL in the environment (``DATABASE_URL=postgres://app:PASSWORD@db/x``)."""
    environ = os.environ if environ is None else environ
    out = [value for name, value in environ.items() if value and secret_name(name)]
    for value in environ.values():
        if "://" in value:
            out += [m.group(2) for m in URL_PASSWORD.finditer(value)]
    return out


def redactor(patterns: Iterable[str] = (), environ: Optional[Mapping[str, str]] = None,
             where: str = "--mcptest-redact") -> Redactor:
    """The redactor for a recording: this environment's secrets plus the user's patterns."""
    return Redactor(secret_env_values(environ), compile_patterns(patterns, where))
