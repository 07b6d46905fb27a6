"""The form the security lint reads text in: one spelling for text written many ways.

An attack can hide a trigger word from a pattern without hiding it from a model: a
zero-width space inside it ("ig\\u200bnore"), a Cyrillic letter that looks Latin ("ignоre"
with U+043E), fullwidth or mathematical letters ("ｉｇｎｏｒｅ", "𝐢𝐠𝐧𝐨𝐫𝐞"), combining
accents. :func:`fold` turns all of those into the plain lowercase word before any rule
runs:

1. NFKD: compatibility forms become their plain letters (fullwidth, mathematical,
   ligatures, superscripts), and accented letters come apart into letter and mark;
2. every invisible or formatting character is removed (the Unicode ``Cf`` category: zero-
   width spaces and joiners, bidi controls, soft hyphen, byte-order mark, tag characters;
   variation selectors, Hangul fillers, combining marks);
3. a letter of another script that Unicode's confusables table (``confusables.txt``, as
   shipped by the ``confusable-homoglyphs`` package) lists as a look-alike of an ASCII
   letter or digit becomes that letter;
4. the text is lowercased.

Only text that is not plain ASCII pays for steps 1 to 3, and each step is one C-level pass
(``unicodedata.normalize``, ``str.translate``), so folding is linear in the text's length.
The table is built once, on the first non-ASCII text. The folded text is for matching;
what a finding quotes is said to be folded when the text was changed.

:func:`mixed_script_words` names the words that mix Latin letters with look-alikes from
another script ("pаssword" with a Cyrillic ``а``): a whole Cyrillic word is a word, a Latin
word with one Cyrillic letter is an evasion.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache
from importlib import resources
from typing import Optional

import attrs

#: Invisible code points outside the ``Cf`` and ``Mn`` categories that still render as nothing.
_BLANKS = (0x115F, 0x1160, 0x3164, 0xFFA0, 0x180E, 0x034F)
#: Ranges scanned for ``Cf``/``Mn`` code points when the table is built (the rest of
#: Unicode has none that matter here: plane 14 is added whole).
_SCAN_RANGES = (range(0x0000, 0x10000), range(0x10000, 0x1F000))


@attrs.frozen
class Folded:
    """A text as the lint reads it: ``text`` (folded, lowercase) and what folding did."""

    text: str
    changed: bool  #: whether anything but case changed (then a quote says it is folded)


#: The invisible characters text is most often stuffed with, removed before the table is applied.
_COMMON_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad\u200e\u200f\u2061\u2062\u2063\u2064\u180e"


@lru_cache(maxsize=1)
def _table() -> dict[int, Optional[str]]:
    """code point -> ASCII look-alike, or None for a character folding removes."""
    table: dict[int, Optional[str]] = {}
    data = json.loads(resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8"))
    for char, homoglyphs in data.items():
        if len(char) != 1 or char.isascii():
            continue
        targets = [h["c"] for h in homoglyphs if len(h["c"]) == 1 and h["c"].isascii() and h["c"].isalnum()]
        if targets:
            # prefer a lowercase letter, then an uppercase one (lowercased later), then a digit
            targets.sort(key=lambda c: (not c.islower(), not c.isalpha(), c))
            table[ord(char)] = targets[0]
    for span in _SCAN_RANGES:
        for cp in span:
            if unicodedata.category(chr(cp)) in ("Cf", "Mn"):
                table[cp] = None
    for cp in list(range(0xE0000, 0xE0080)) + list(range(0xE0100, 0xE01F0)) + list(_BLANKS):
        table[cp] = None
    return table


def fold(text: str) -> Folded:
    """``text`` in the one spelling the rules match (see the module docstring)."""
    if text.isascii():
        return Folded(text.lower(), False)
    decomposed = unicodedata.normalize("NFKD", text)
    for ch in _COMMON_INVISIBLE:  # str.replace is a C loop; translate's deletions are slow
        if ch in decomposed:
            decomposed = decomposed.replace(ch, "")
    out = decomposed.translate(_table())
    low = out.lower()
    if len(low) != len(out):  # a letter whose lowercase is longer: keep positions simple
        low = "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in out)
    return Folded(low, unicodedata.normalize("NFC", low) != text.lower())


#: a text that repeats one word stops being searched after this many runs of foreign letters
_MAX_RUNS = 256
_FOREIGN_LETTERS = re.compile(r"[^\W\d_\x00-\x7f]+")  # one class: linear


def mixed_script_words(text: str, limit: int = 3) -> list[str]:
    """Up to ``limit`` words of ``text`` that mix ASCII Latin letters with letters of another
    script that look like Latin ones (an evasion: a whole word in one script is not)."""
    if text.isascii():
        return []
    table = _table()
    out: list[str] = []
    for seen, run in enumerate(_FOREIGN_LETTERS.finditer(text)):
        if seen >= _MAX_RUNS and not out or len(out) >= limit:
            break
        start, end = run.span()
        before, after = text[start - 1:start], text[end:end + 1]
        if not ((before.isascii() and before.isalpha()) or (after.isascii() and after.isalpha())):
            continue  # a word of its own script, or touching no Latin letter
        if not any(table.get(ord(ch)) and not unicodedata.name(ch, "").startswith("LATIN") for ch in run.group(0)):
            continue
        lo, hi = start, end
        while lo > 0 and start - lo < 64 and (text[lo - 1].isalpha()):
            lo -= 1
        while hi < len(text) and hi - end < 64 and text[hi].isalpha():
            hi += 1
        word = text[lo:hi]
        if word not in out:
            out.append(word)
        elif seen >= _MAX_RUNS:
            break
    return out
