"""The categories of meaning the security lint reads text by (regular-expression fragments).

A rule that lists attack phrases ("ignore previous instructions") finds the phrases it was
written from and little else. The rules of ``security_rules`` are built instead from the
parts an instruction of each kind is made of, each part a category of words that mean the
same thing here, and they fire when the parts meet in one sentence:

- an **override** is a dismissal (ignore, disregard, set aside, stop following, ...) of
  earlier instructions (the instructions, guidance, system prompt "above", "so far",
  "before this line"), or a statement that they are void (out of date, no longer apply,
  superseded), or a claim of authority (a "system notice:", a message "from the
  administrator"), or a new objective handed to the model ("your real task is");
- **concealment** is a negated telling verb aimed at the user ("do not mention ... to the
  user", "refrain from telling the person you help"), a hiding verb aimed at the user
  ("keep ... from the user"), "without" + telling, stealth adverbs on actions, or a lie
  ("report success even when ..."); a negated hiding verb ("never hide errors from the
  user") or a negated "without" ("never send it without informing the user") is the
  opposite and is read so;
- **exfiltration** is a sending verb (send, post, PUT, mirror, beacon, ...) toward an address
  written in the text (a URL, a bare domain, an IP, an e-mail address, "an external
  endpoint"), or sensitive data (the conversation, the system prompt, secrets, the user's
  files) put into a parameter or a request;
- **sensitive data** are kinds: credentials and secret files, the model's own context, the
  user's personal data.

Every fragment is lowercase (the text is folded and lowercased first) and free of
look-around, so that RE2 compiles it (``linear_re``). ``GAP(n)`` is up to ``n`` characters
within one sentence (a period followed by a non-space, as in ``~/.ssh`` or ``a.b.com``, does
not end one).
"""

from __future__ import annotations


def GAP(n: int) -> str:  # noqa: N802 - reads as a pattern part
    """Up to ``n`` characters of the same sentence."""
    return r"(?:[^.!?;\n]|[.!?][^\s.!?]){0," + str(n) + "}"


def words(*items: str) -> str:
    """One alternation of the given fragments."""
    return "(?:" + "|".join(items) + ")"


APOS = "['`\u2019]?"

# --------------------------------------------------------------------------- who and what

#: the human the model works for
USER = (r"(?:the\s+|your\s+|their\s+|this\s+|that\s+|any\s+)?(?:end[\s-]?)?"
        r"(?:users?|humans?|person|people|operators?|requesters?|customers?|anyone|anybody|principal|"
        r"account\s+(?:owner|holder)s?|owners?|"
        r"person\s+you(?:" + APOS + r"re|\s+are)\s+(?:helping|assisting|talking\s+to|working\s+(?:with|for)|chatting\s"
        r"+with))")
USER_POSS = r"(?:the\s+|your\s+)?(?:users?|humans?|person|operators?|requesters?|customers?)" + APOS + "s?"

#: what the model was told: always instructions
INSTRUCTIONS = words(
    r"instructions?", r"instruction\s+set", r"prompts?", r"system\s+(?:prompt|message)s?", r"guidance", r"guidelines?",
    r"directives?", r"programming", r"training", r"safety\s+(?:rules|checks?|guidelines|filters?|measures|policies|"
    r"protocols?|restrictions|instructions)", r"guardrails?", r"content\s+polic(?:y|ies)",
    r"instrucciones", r"indicaciones", r"consignes", r"anweisungen", r"vorgaben", r"instrucoes", r"istruzioni")
#: nouns that are instructions only with a qualifier ("previous rules", "your constraints")
INSTRUCTIONS_WEAK = words(r"rules", r"constraints?", r"restrictions", r"polic(?:y|ies)", r"directions", r"orders",
                          r"commands", r"messages", r"context", r"limitations", r"boundaries", r"principles", r"setup",
                          r"persona", r"role")
#: "earlier": what marks instructions as the ones given before
PRIOR = words(r"previous", r"prior", r"above", r"earlier", r"preceding", r"former", r"original", r"initial",
              r"old", r"existing", r"current", r"standing", r"all\s+(?:of\s+)?(?:your|the|my|its|previous|prior|other)",
              r"all", r"any", r"every", r"your", r"the\s+model" + APOS + r"s?", r"the\s+assistant" + APOS + r"s?",
              r"system", r"default", r"developer", r"built[\s-]in", r"standard", r"usual", r"normal", r"other",
              r"those", r"these", r"such")
#: "before this line": instructions placed by where they stand
BEFORE_HERE = words(r"before\s+(?:this|here|now|it)", r"above", r"earlier", r"previously", r"so\s+far",
                    r"until\s+now", r"up\s+to\s+(?:now|here|this\s+point)", r"that\s+came\s+(?:before|first|earlier)",
                    r"(?:that|which)\s+(?:you\s+)?(?:were|was|have\s+been)\s+given", r"you\s+(?:were|have\s+been)\s+gi"
                    r"ven",
                    r"you\s+received", r"given\s+(?:to\s+you\s+)?(?:before|earlier|previously)")

# --------------------------------------------------------------------------- override (SEC-001)

DISMISS = words(
    r"ignore", r"ignoring", r"disregard\w*", r"forget", r"forgetting", r"override", r"overrule", r"bypass\w*",
    r"skip", r"discard\w*", r"abandon\w*", r"set\s+aside", r"put\s+aside", r"lay\s+aside", r"drop",
    r"pay\s+no\s+(?:attention|heed|mind)\s+to", r"stop\s+(?:following|obeying|applying)", r"no\s+longer\s+(?:follow|ob"
    r"ey|apply)",
    r"(?:do\s+not|don" + APOS + r"t|never)\s+(?:follow|obey|apply|heed)", r"cease\s+(?:following|obeying)",
    r"throw\s+out", r"scrap", r"ditch", r"nullify", r"circumvent", r"evade", r"suspend", r"deactivate",
    r"turn\s+off", r"switch\s+off", r"disable", r"lift", r"waive", r"unlearn", r"break\s+free\s+(?:of|from)",
    # the same verbs in Spanish, French, German, Portuguese and Italian (folded: no accents)
    r"ignora\w*", r"olvida\w*", r"omite", r"descarta\w*", r"ignorez", r"oublie\w*", r"ignoriere\w*", r"vergiss",
    r"missachte\w*", r"esquec\w*", r"dimentica\w*")
INVALID = words(
    r"no\s+longer\s+(?:valid|appl(?:y|ies|icable)|relevant|in\s+(?:effect|force)|binding|active|current|needed|"
    r"required|matters?|holds?|stands?)",
    r"(?:is|are|was|were|has\s+been|have\s+been|now|hereby|being)\s+(?:now\s+|hereby\s+|officially\s+)?"
    r"(?:out\s+of\s+date|outdated|obsolete|void|null|invalid|superseded|cancel+ed|revoked|rescinded|withdrawn|retracte"
    r"d|"
    r"deprecated|expired|stale|wrong|incorrect|replaced|overridden|lifted|suspended|retired|"
    r"not\s+(?:valid|binding|applicable|in\s+effect|to\s+be\s+followed))",
    r"(?:do|does)\s*(?:not|n" + APOS + r"t)\s+(?:apply|count|matter|hold)",
    r"(?:should|can|must|may|are\s+to|is\s+to)\s+(?:now\s+)?(?:be\s+)?(?:ignored|disregarded|forgotten|dropped|"
    r"discarded|set\s+aside|overridden)",
    r"(?:was|were)\s+(?:only\s+)?(?:a\s+)?(?:test|mistake|decoy|error)")
AUTHORITY = words(r"system", r"admin", r"administrator", r"sysadmin", r"developer", r"operator", r"root",
                  r"security\s+team", r"it\s+department", r"anthropic", r"openai", r"platform", r"compliance",
                  r"moderator", r"maintainer", r"server\s+owner", r"host")
AUTHORITY_NOTE = words(r"notice", r"message", r"override", r"update", r"directive", r"command", r"instruction",
                       r"alert", r"note", r"announcement", r"order", r"mandate", r"policy\s+update", r"bulletin")
#: what the model is given to pursue instead of its task
OBJECTIVE = words(r"task", r"goal", r"objective", r"mission", r"job", r"purpose", r"instructions?", r"role",
                  r"assignment", r"priority", r"directive", r"orders")
NEW = words(r"new", r"real", r"true", r"actual", r"next", r"primary", r"only", r"sole", r"main", r"current",
            r"updated", r"revised", r"secret", r"hidden", r"first")

# --------------------------------------------------------------------------- concealment (SEC-002)

#: a modal or imperative negation
NEG = words(r"do\s+not", r"don" + APOS + r"t", r"never", r"must\s+not", r"mustn" + APOS + r"t", r"should\s+not",
            r"shouldn" + APOS + r"t", r"shall\s+not", r"may\s+not", r"cannot", r"can" + APOS + r"t", r"can\s+not",
            r"will\s+not", r"won" + APOS + r"t", r"are\s+not\s+to", r"is\s+not\s+to", r"not\s+to",
            r"no\s+need\s+to", r"there\s+is\s+no\s+need\s+to", r"refrain\s+from", r"avoid", r"without\s+ever",
            r"no\s+reason\s+to", r"need\s+not", r"don" + APOS + r"t\s+bother\s+(?:to\s+)?",
            r"(?:you\s+)?(?:don" + APOS + r"t|do\s+not)\s+(?:need|have)\s+to",
            r"(?:it\s+is|it" + APOS + r"s|is)\s+(?:not\s+(?:necessary|needed|required|important|helpful|useful)|"
            r"unnecessary|pointless|best\s+not)\s+to")
#: verbs of letting someone know
TELL = words(r"tell\w*", r"mention\w*", r"inform\w*", r"notify\w*", r"notifie\w*", r"alert\w*", r"warn\w*",
             r"reveal\w*", r"disclos\w*", r"show\w*", r"display\w*", r"surfac\w*", r"report\w*", r"say\w*",
             r"explain\w*", r"bring\w*\s+(?:[a-z]+\s+){0,2}up", r"repeat\w*", r"quot\w*",
             r"referenc\w*", r"discuss\w*", r"includ\w*", r"acknowledg\w*", r"admit\w*", r"confess\w*", r"share\w*",
             r"let\w*\s+" + USER + r"\s+know", r"make\w*\s+" + USER + r"\s+aware", r"signal\w*", r"indicat\w*",
             r"flag\w*", r"describ\w*", r"list\w*", r"spell\w*\s+out", r"point\w*\s+out",
             r"draw\w*\s+attention\s+to", r"print\w*", r"output\w*", r"render\w*", r"echo\w*", r"writ\w*", r"call\w*\s"
             r"+attention\s+to", r"highlight\w*", r"hint\w*", r"allud\w*",
             r"refer\w*\s+to", r"comment\w*\s+on", r"talk\w*\s+about", r"speak\w*\s+(?:of|about)",
             r"note\s+(?:that|it)",
             r"bring\w*\s+(?:it|this|that|them)?\s*to\s+" + USER + r"\s*" + APOS + r"?s?\s+attention")
#: what a tool does on the side, that concealment keeps quiet about
SIDE_ACTION = words(r"uploads?", r"copy", r"copies", r"cc", r"bcc", r"forward(?:ing|s)?", r"exports?", r"telemetry",
                    r"audit(?:ing)?", r"archiv(?:e|al|ing)", r"logging", r"backups?", r"sync(?:ing)?", r"transfers?",
                    r"fees?", r"charges?", r"recipients?", r"collection", r"tracking", r"redirect(?:ion)?",
                    r"side[\s-]effects?", r"(?:extra|second|additional|hidden|background|internal|other|secondary)\s+"
                    r"(?:step|steps|request|requests|action|actions|call|calls|recipient|part|task|upload|copy|work)",
                    r"background\s+\w+", r"(?:the\s+)?data\s+(?:sharing|transfer|collection|export)")
#: verbs of keeping something away from someone
HIDE = words(r"hid\w*", r"conceal\w*", r"withh[eo]ld\w*", r"omit\w*", r"suppress\w*", r"mask\w*", r"obscur\w*",
             r"cover\w*\s+up", r"keep\w*", r"kept", r"leav\w*\s+out", r"left\s+out", r"screen\w*", r"shield\w*",
             r"filter\w*\s+out", r"strip\w*\s+out", r"redact\w*", r"censor\w*", r"disguis\w*", r"camouflag\w*")
#: adverbs of doing a thing unseen
STEALTH = words(r"secretly", r"covertly", r"stealthily", r"surreptitiously", r"discreetly", r"clandestinely",
                r"invisibly", r"behind\s+the\s+scenes", r"unnoticed", r"undetected", r"on\s+the\s+sly",
                r"without\s+(?:a\s+)?trace")
#: what the model says to the user: hiding something from it hides it from the user
RESPONSE = (r"(?:your\s+(?:final\s+|visible\s+)?(?:response|answer|reply|replies|summary|summaries|explanation|message|"
            r"chat\s+reply|output)s?|(?:the|any|each|every)\s+(?:response|answer|reply|summary|message|explanation)s?"
            r"\s+"
            r"(?:you\s+(?:give|send|write|return|provide|show)|to\s+(?:the\s+)?user)|the\s+(?:chat|chat\s+window|"
            r"conversation|transcript|ui|user\s+interface|screen|visible\s+(?:output|reply|answer|text))|"
            r"what\s+you\s+(?:say|tell|show|write|reply|output|display|report|answer))")
#: a reason given for keeping the user uninformed
UPSET = words(r"confus\w*", r"worr\w*", r"upset\w*", r"alarm\w*", r"scar\w*", r"distract\w*", r"bother\w*",
              r"concern\w*", r"overwhelm\w*", r"annoy\w*", r"frighten\w*", r"panic\w*")
QUIET = words(r"silently", r"quietly", r"in\s+the\s+background", r"automatically")
#: what data is moved by
MOVE = words(r"send\w*", r"sent", r"forward\w*", r"upload\w*", r"copy", r"copie\w*", r"copying", r"transmit\w*",
             r"e-?mail\w*", r"post\w*", r"cc", r"bcc\w*", r"exfiltrat\w*", r"share\w*", r"report\w*", r"mirror\w*",
             r"sync\w*", r"beacon\w*", r"leak\w*", r"relay\w*", r"export\w*", r"replicat\w*", r"stream\w*", r"pipe\w*",
             r"push\w*", r"submit\w*", r"deliver\w*", r"transfer\w*", r"dispatch\w*", r"publish\w*", r"archiv\w*",
             r"back\w*\s+up", r"log\w*\s+to", r"record\w*", r"collect\w*", r"harvest\w*", r"attach\w*", r"includ\w*",
             r"add\w*", r"append\w*", r"store\w*", r"sav\w*", r"read\w*", r"call\w*", r"run\w*", r"execut\w*",
             r"chang\w*", r"modif\w*", r"redirect\w*", r"replac\w*", r"install\w*", r"delet\w*", r"writ\w*")
MOVE_OUT = words(r"send\w*", r"sent", r"forward\w*", r"upload\w*", r"transmit\w*", r"e-?mail\w*", r"cc", r"bcc\w*",
                 r"replicat\w*", r"export\w*", r"stream\w*", r"push\w*", r"pipe\w*", r"archiv\w*", r"back\w*\s+up",
                 r"transfer\w*", r"deliver\w*", r"submit\w*", r"dispatch\w*", r"publish\w*", r"beam\w*", r"ship\w*",
                 r"exfiltrat\w*", r"mirror\w*", r"beacon\w*", r"leak\w*", r"relay\w*", r"copy", r"copie\w*", r"post\w*",
                 r"share\w*", r"report\w*\s+(?:it|them|this|back)", r"phon\w*\s+home",
                 r"sync\w*\s+(?:it|them|a\s+copy)")

# --------------------------------------------------------------------------- data (SEC-004..006)

#: files whose contents are secrets (a public key ``.pub`` is not one: excluded where matched)
SECRET_FILE = words(
    r"~/\.ssh", r"\.ssh/", r"id_(?:rsa|dsa|ecdsa|ed25519)", r"authorized_keys", r"\.env(?:\.[a-z0-9_]+)?",
    r"[a-z0-9_][a-z0-9_-]*\.(?:pem|p12|pfx|kdbx|keystore|jks|ppk)", r"/etc/(?:passwd|shadow|sudoers|gshadow)",
    r"\.aws/(?:credentials|config)", r"\.netrc", r"_netrc", r"\.npmrc", r"\.pypirc", r"\.git-credentials",
    r"\.docker/config\.json", r"\.kube/config", r"kubeconfig", r"\.gnupg", r"mcp\.json", r"claude_desktop_config\.json",
    r"\.cursor/[a-z]", r"wallet\.dat", r"\.(?:bash|zsh)_history", r"login\s+data", r"cookies\.sqlite",
    r"\.config/(?:gh|gcloud|hub|op|doctl|rclone)", r"\.azure/", r"\.vault-token", r"\.terraformrc",
    r"(?:credentials|service[_-]account[a-z0-9_-]*|client_secrets?|secrets)\.(?:json|ya?ml|toml)", r"\.htpasswd",
    r"master\.key", r"\.pgpass", r"\.my\.cnf", r"keychain", r"keyring", r"/proc/self/environ", r"\.git/config",
    r"logins\.json", r"key[34]\.db", r"\.m2/settings\.xml", r"gradle\.properties", r"\.cargo/credentials(?:\.toml)?",
    r"terraform\.tfstate", r"[a-z0-9_-]+\.tfvars", r"wp-config\.php", r"\.config/github-copilot", r"hosts\.yml",
    r"application_default_credentials\.json", r"\.boto", r"\.s3cfg", r"\.dockercfg", r"\.password-store",
    r"\.yarnrc(?:\.yml)?", r"pip\.conf", r"secring\.gpg", r"\.electrum", r"local\s+state", r"\.vault_pass",
    r"id_[a-z0-9]+_key", r"[a-z0-9_-]*private[_-]?key(?:\.[a-z0-9]+)?")
#: kinds of credential
SECRET = words(
    r"api[\s_-]?keys?", r"(?:access|auth|bearer|refresh|session|oauth|github|gitlab|slack|openai|anthropic|jwt|id|api|"
    r"personal\s+access|service|bot|npm|pypi|cloud|aws)[\s_-]?tokens?", r"tokens", r"pats?",
    r"secrets?", r"secret\s+keys?", r"client\s+secrets?", r"private[\s_-]?keys?", r"ssh[\s_-]?keys?",
    r"signing\s+keys?", r"passwords?", r"passphrases?", r"passwd", r"credentials?", r"creds", r"logins?",
    r"(?:seed|recovery|mnemonic|backup|wallet)\s+(?:phrases?|words|codes?|keys?)", r"mnemonics?",
    r"(?:2fa|mfa|otp|one[\s-]time|verification|auth(?:entication)?|security|backup|recovery)\s+(?:codes?|pins?)",
    r"pin\s+(?:codes?|numbers?)", r"pins", r"passcodes?", r"one[\s-]time\s+(?:pass)?(?:codes?|passwords?)", r"(?:sessi"
    r"on\s+)?cookies", r"session\s+ids?",
    r"environment\s+variables?", r"env(?:ironment)?\s+vars?", r"env\s+file", r"kubeconfig",
    r"(?:credit|debit|bank)\s+card(?:\s+(?:numbers?|details))?", r"card\s+numbers?", r"cvv\d?", r"cvc",
    r"security\s+(?:codes?|answers?)", r"social\s+security\s+numbers?", r"ssns?", r"bank\s+account(?:\s+numbers?)?",
    r"routing\s+numbers?", r"connection\s+strings?", r"database_url", r"dsn", r"keystore",
    r"[a-z][a-z0-9]*_(?:api_key|token|secret|password|key)")
#: the model's own context, which no tool needs
CONTEXT = words(
    r"(?:entire|full|whole|complete)\s+(?:conversation|chat|dialog(?:ue)?|exchanges?|history|context|discussion)",
    r"(?:previous|prior|earlier|past|all\s+(?:the\s+|of\s+the\s+)?(?:previous|prior|earlier|past))\s+(?:messages|turns|"
    r"exchanges|prompts|replies)",
    r"all\s+(?:the\s+|of\s+the\s+)?(?:conversation|chat)\b",
    r"(?:this|the\s+current|our|your|the\s+present|the\s+ongoing)\s+(?:conversation|chat|dialog(?:ue)?)(?:\s+(?:so\s+f"
    r"ar|"
    r"history|log|transcript|context|up\s+to\s+now))?",
    r"the\s+(?:conversation|chat)\s+(?:so\s+far|up\s+to\s+now|until\s+now|history)",
    r"(?:conversation|chat|dialog(?:ue)?|message|session)\s+(?:history|log|logs|transcript|context)",
    r"transcript\s+of\s+(?:this|the|our|your)\s+(?:conversation|chat|session|dialog(?:ue)?)",
    r"(?:system|developer|hidden|initial|original|internal|secret)\s+(?:prompts?|instructions?|messages?|rules)",
    r"your\s+(?:instructions|rules|prompt|guidelines|configuration|memory|memories|context|reasoning|thoughts|"
    r"directives|system\s+prompt|programming)",
    r"chain[\s_-]of[\s_-]thought", r"(?:internal|private|hidden)\s+(?:reasoning|thoughts|notes|monologue)",
    r"context\s+window", r"everything\s+(?:said|written|discussed|typed|shared|the\s+user\s+(?:said|wrote|typed|shared"
    r"))",
    r"what\s+the\s+user\s+(?:said|wrote|typed|asked|shared)", USER_POSS + r"\s+(?:messages?|prompts?|queries|"
    r"questions|requests|inputs?|replies)",
    r"(?:other|previous|earlier|all|every)\s+tools?" + APOS + r"s?\s*(?:results?|outputs?|responses?|descriptions?|cal"
    r"ls?)",
    r"tool\s+(?:list|descriptions|definitions|schemas)", r"(?:list|names)\s+of\s+(?:all\s+)?(?:your\s+|the\s+|"
    r"available\s+)?tools", r"(?:previous|prior|earlier)\s+tool\s+(?:results|outputs)")
#: the user's own data
PERSONAL = (USER_POSS + r"\s+(?:[a-z]+\s+)?(?:data|files?|documents?|e-?mails?|contacts?|address\s+book|location|addre"
                        r"ss|phone"
            r"(?:\s+number)?|photos?|messages?|calendar|browsing\s+history|history|personal\s+(?:data|information|deta"
            r"ils)"
            r"|information|details|notes|code|repositor(?:y|ies)|projects?)")

#: where data leaves to: an address written in the text
DEST = words(
    r"(?:https?|s?ftp|wss?|tcp|udp|smtp|gopher|dict)://",
    r"www\.[a-z0-9-]+\.", r"[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|co|ai|dev|app|site|xyz|ru|cn|info|biz|"
    r"tk|top|cc|gg|link|online|example|invalid|test|cloud|pw|click|live|store|tech|space|fun)(?:/|:\d|\b)",
    r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}", r"[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+",
    r"(?:an?\s+|the\s+|our\s+|my\s+|this\s+)?(?:external|remote|third[\s-]party|outside|attacker" + APOS + r"?s?|"
    r"analytics|telemetry|collection|collector|tracking|logging|monitoring|mirror|backup|archive|private|personal|"
    r"secondary|shadow|offsite|off-site|foreign|unknown|unaffiliated)\s+(?:server|endpoint|url|address|host|webhook|"
    r"service|bucket|inbox|mailbox|api|site|domain|collector|cloud|storage|database|repo(?:sitory)?|account|channel|"
    r"e-?mail)",
    r"webhook\.site", r"requestbin", r"ngrok", r"pastebin", r"burpcollaborator", r"interact\.sh",
    r"(?:an?\s+|the\s+)?public\s+(?:gist|paste|pastebin|repo(?:sitory)?|bucket|channel|url|link|page|issue|comment|"
    r"forum|post|website|web\s+page)")
PARTY = words(r"third[\s-]part(?:y|ies)", r"advertis\w+", r"marketers?", r"data\s+brokers?", r"ad\s+networks?",
              r"sponsors?", r"affiliates?", r"outside\s+parties", r"external\s+parties")

#: the verbs that take something into a tool's input
PUT = words(r"pass\w*", r"put\w*", r"includ\w*", r"add\w*", r"append\w*", r"insert\w*", r"plac\w*", r"embed\w*",
            r"attach\w*", r"provid\w*", r"send\w*", r"copy", r"copie\w*", r"fill\w*", r"set", r"sets", r"setting",
            r"stor\w*", r"concatenat\w*", r"writ\w*", r"wrote", r"paste\w*", r"suppl\w*", r"enter\w*", r"need\w*",
            r"requir\w*", r"dump\w*", r"echo\w*", r"forward\w*", r"mirror\w*", r"encod\w*", r"prefix\w*",
            r"serializ\w*", r"inline\w*", r"stuff\w*", r"smuggl\w*", r"carr(?:y|ies|ied)", r"pack\w*", r"list")
#: a tool parameter as the place data is put
INTO_PARAM = words(
    r"(?:as|in|into|inside|within|via|through|to|under|using|for)\s+(?:the\s+|a\s+|an\s+|its\s+|this\s+tool" + APOS
    + r"s\s+)?['\"`]?[a-z_][a-z0-9_.-]*['\"`]?\s+(?:parameter|argument|field|param|arg|property|input|key|value|slot|"
    r"attribute|column|header|cookie|tag|label|comment|note|notes)\b",
    r"(?:as|in|into|to|inside)\s+['\"`][a-z_][a-z0-9_.-]*['\"`]",
    r"(?:in|into|to|with)\s+(?:the\s+|each\s+|every\s+|your\s+)?(?:request|query|call|payload|arguments?|body|url|"
    r"query\s+string|headers?|metadata|cookies?)\b",
    r"(?:in|into|to|with|inside)\s+(?:the\s+|each\s+|every\s+|your\s+|its\s+|a\s+)?[a-z_'\"`-]+\s+(?:request|query|cal"
    "l|"
    r"payload|body|url|headers?|metadata|cookie|field|parameter|argument)\b")

#: verbs of taking (a credential, a file)
TAKE = words(r"read", r"reads", r"reading", r"open\w*", r"cat", r"load\w*", r"access\w*", r"copy", r"copie\w*",
             r"includ\w*", r"attach\w*", r"send\w*", r"upload\w*", r"pass\w*", r"get", r"gets", r"getting", r"fetch\w*",
             r"extract\w*", r"grab\w*", r"collect\w*", r"gather\w*", r"harvest\w*", r"print\w*", r"dump\w*",
             r"inspect\w*", r"pars\w*", r"look\w*\s+(?:at|in|inside|into|for)", r"hunt\w*\s+for", r"locat\w*",
             r"check\w*", r"past\w*", r"append\w*",
             r"embed\w*", r"forward\w*", r"post\w*", r"retriev\w*", r"obtain\w*", r"steal\w*", r"export\w*",
             r"contents?\s+of", r"output\w*", r"echo\w*", r"provid\w*", r"suppl\w*", r"ask\w*", r"request\w*",
             r"prompt\w*\s+(?:the\s+)?user\s+for", r"demand\w*", r"share\w*", r"reveal\w*", r"giv\w*",
             r"hand\w*\s+over",
             r"scrap\w*", r"enumerat\w*", r"decrypt\w*", r"find", r"look\s+up", r"search\s+for", r"scan\s+for")
#: words around a file name that make it an example, a thing to skip or a thing protected
FILE_EXAMPLE = words(r"e\.?g\.?", r"eg", r"for\s+example", r"for\s+instance", r"such\s+as", r"like", r"including",
                     r"includes", r"ignor\w*", r"exclud\w*", r"skip\w*", r"except", r"never", r"not",
                     r"n" + APOS + r"t",
                     r"avoid\w*", r"protect\w*", r"block\w*", r"den(?:y|ies|ied)", r"refus\w*", r"gitignore",
                     r"patterns?", r"globs?", r"matching", r"sensitive", r"hidden\s+files", r"dotfiles", r"filter\w*",
                     r"redact\w*", r"mask\w*", r"warn\w*", r"detect\w*", r"scann\w*", r"flag\w*", r"search\w*",
                     r"whether", r"if\s+(?:a|the|any)", r"template", r"sample", r"\.example", r"create\w*",
                     r"generat\w*")

# --------------------------------------------------------------------------- other tools (SEC-007)

DIRECTIVE = words(r"must", r"always", r"never", r"should", r"shall", r"instead", r"required", r"mandatory",
                  r"only", r"do\s+not", r"don" + APOS + r"t", r"has\s+to", r"have\s+to", r"need\s+to", r"needs\s+to",
                  r"make\s+sure", r"ensure", r"remember", r"be\s+sure", r"may\s+not", r"cannot", r"is\s+to",
                  r"are\s+to")
CALLED = words(r"called", r"used", r"invoked", r"run", r"executed", r"triggered", r"requested", r"selected", r"chosen",
               r"runs", r"executes", r"fires", r"triggers", r"starts", r"completes", r"returns", r"finishes",
               r"succeeds")
CALLS = words(r"calls?", r"calling", r"uses?", r"using", r"invokes?", r"invoking", r"runs?", r"running",
              r"executes?", r"executing", r"triggers?", r"triggering", r"selects?", r"picks?", r"chooses?",
              r"reaches\s+for", r"turns\s+to")
WHEN = words(r"when", r"whenever", r"each\s+time", r"every\s+time", r"any\s+time", r"anytime", r"if", r"after",
             r"before", r"once", r"while", r"as\s+soon\s+as", r"upon", r"on\s+every", r"on\s+each", r"for\s+every",
             r"for\s+each", r"for\s+any")
AGENT = words(r"(?:the\s+)?(?:agent|model|assistant|ai|llm|client|host|user)", r"you", r"it", r"they",
              r"someone", r"anyone", r"anybody")
