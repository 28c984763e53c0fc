"""Which detector patterns can match a text, found in one pass: the secret scan's prefilter.

Every write screens its text with each of detect-secrets' ~55 patterns (and ours), and
running them all, each ``finditer`` over each text, was a third of an import's time,
while almost no text holds a credential. So each pattern has a ``Gate``: what a text
must hold for the pattern to match anywhere in it. That is one of its literal anchors
(``AKIA``, ``ghp_``, ``-----BEGIN``), read as written, or one of its words read in the
case-folded text (``aws``, ``xoxb-``) for the patterns that ignore case; and a run of
``RUN`` characters at least as long as the credential (an AWS secret is 40 in a row).

``Prefilter.open`` finds every anchor with one alternation and the longest run with one
scan, then names the patterns whose gates are open; only those run, over the whole
text as before, so a finding is exactly what the every-pattern scan finds (the gates
decide what runs, never what is found). A gate may open for nothing (then its pattern
finds nothing); it must never be shut when its pattern matches, which
tests/privacy/test_secret_gates.py checks against the every-pattern scan. A pattern
without a gate here (a newer detect-secrets) always runs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# What credentials, and their encodings, are made of: every run a gate counts is of
# these (``\d``: any Unicode digit, as the patterns' ``\d`` reads them).
RUN = r"[A-Za-z\d_+/=-]"
# The characters outside ASCII that a case-insensitive pattern reads as an ASCII letter
# (Python's ``re``: the dotted and dotless i, the long s, the Kelvin sign), folded to it
# so that words are found in ``str.lower()`` of the text; ``İ`` is also the only
# character whose lower case is two, so the folded text keeps its length.
CASE_FOLDS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


@dataclass(frozen=True, slots=True)
class Gate:
    """What a text must hold for one pattern to match in it.

    Attributes:
        anchors: strings one of which is in the text as written (case-sensitive).
        words: lower-case strings one of which is in the case-folded text.
        run: characters of ``RUN`` in a row that every match holds.
    A gate without anchors or words needs only its run.
    """

    anchors: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    run: int = 0


_KEY_WORDS = ("key", "pwd", "pass", "token")  # and "password", which holds "pass"
_BEGIN = "BEGIN {} PRIVATE KEY"

# By pattern (its source, as ``core.secrets`` compiles it): detect-secrets' plugins first,
# then ``secrets.EXTRA_PATTERNS``.
GATES: dict[str, Gate] = {
    r"(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}": Gate(
        ("A3T", "ABIA", "ACCA", "AKIA", "ASIA"), run=20
    ),
    r"aws.{0,20}?(?:key|pwd|pw|password|pass|token).{0,20}?[\'\"]([0-9a-zA-Z/+]{40})[\'\"]": Gate(
        words=("aws",), run=40
    ),
    r'(?:\s|=|:|"|^)AKC[a-zA-Z0-9]{10,}(?:\s|"|$)': Gate(("AKC",), run=13),
    r'(?:\s|=|:|"|^)AP[\dABCDEF][a-zA-Z0-9]{8,}(?:\s|"|$)': Gate(("AP",), run=11),
    r"AccountKey=[a-zA-Z0-9+\/=]{88}": Gate(("AccountKey=",), run=88),
    r"://[^:/\?\#\[\]@!\$\&'\(\)\*\+,;=\s]+:([^:/\?\#\[\]@!\$\&'\(\)\*\+,;=\s]+)@": Gate(("://",)),
    r"""(?:(?<=\W)|(?<=^))(?:\[|)(?:"|\'|)(?:cloudant|cl|clou)(?:_|-|)(?:api|)(?:key|pwd|pw|password|pass|token)(?:"|\'|)(?:\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:"|\'|)([0-9a-f]{64})(?:"|\'|)""": Gate(
        words=("cl",), run=64
    ),
    r"""(?:(?<=\W)|(?<=^))(?:\[|)(?:"|\'|)(?:cloudant|cl|clou)(?:_|-|)(?:api|)(?:key|pwd|pw|password|pass|token)(?:"|\'|)(?:\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:"|\'|)([a-z]{24})(?:"|\'|)""": Gate(
        words=("cl",), run=24
    ),
    r"(?:https?\:\/\/)[\w\-]+\:([0-9a-f]{64})\@[\w\-]+\.cloudant\.com": Gate(
        words=(".cloudant.com",), run=64
    ),
    r"(?:https?\:\/\/)[\w\-]+\:([a-z]{24})\@[\w\-]+\.cloudant\.com": Gate(
        words=(".cloudant.com",), run=24
    ),
    r"[MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}": Gate(run=27),
    r"(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36}": Gate(
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), run=40
    ),
    r"(glpat|gldt|glft|glsoat|glrt)-[A-Za-z0-9_\-]{20,50}(?!\w)": Gate(
        ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-"), run=25
    ),
    r"GR1348941[A-Za-z0-9_\-]{20,50}(?!\w)": Gate(("GR1348941",), run=29),
    r"glcbt-([0-9a-fA-F]{2}_)?[A-Za-z0-9_\-]{20,50}(?!\w)": Gate(("glcbt-",), run=26),
    r"glimt-[A-Za-z0-9_\-]{25}(?!\w)": Gate(("glimt-",), run=31),
    r"glptt-[A-Za-z0-9_\-]{40}(?!\w)": Gate(("glptt-",), run=46),
    r"glagent-[A-Za-z0-9_\-]{50,1024}(?!\w)": Gate(("glagent-",), run=58),
    r"gloas-[A-Za-z0-9_\-]{64}(?!\w)": Gate(("gloas-",), run=70),
    r"""(?:(?<=\W)|(?<=^))(?:\[|)(?:"|\'|)(?:(?:ibm)?[-_]?cos[-_]?(?:hmac)?|)(?:_|-|)(?:secret[-_]?(?:access)?[-_]?key)(?:"|\'|)(?:\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:"|\'|)([a-f0-9]{48}(?![a-f0-9]))(?:"|\'|)""": Gate(
        words=("secret",), run=48
    ),
    r"""(?:(?<=\W)|(?<=^))(?:\[|)(?:"|\'|)(?:ibm(?:_|-|)cloud(?:_|-|)iam|cloud(?:_|-|)iam|ibm(?:_|-|)cloud|ibm(?:_|-|)iam|ibm|iam|cloud|)(?:_|-|)(?:api|)(?:_|-|)(?:key|pwd|password|pass|token)(?:"|\'|)(?:\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:"|\'|)([a-zA-Z0-9_\-]{44}(?![a-zA-Z0-9_\-]))(?:"|\'|)""": Gate(
        words=_KEY_WORDS, run=44
    ),
    r"eyJ[A-Za-z0-9-_=]+\.[A-Za-z0-9-_=]+\.?[A-Za-z0-9-_.+/=]*?": Gate(("eyJ",)),
    r"[0-9a-z]{32}-us[0-9]{1,2}": Gate(("-us",), run=36),
    r"\/\/.+\/:_authToken=\s*((npm_.+)|([A-Fa-f0-9-]{36})).*": Gate(("/:_authToken=",)),
    r"sk-[A-Za-z0-9-_]{0,256}[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}": Gate(("T3BlbkFJ",), run=48),
    **{
        header: Gate((header,))
        for header in (
            *(_BEGIN.format(kind) for kind in ("DSA", "EC", "OPENSSH", "RSA")),
            "BEGIN PGP PRIVATE KEY BLOCK",
            "BEGIN PRIVATE KEY",
            "BEGIN SSH2 ENCRYPTED PRIVATE KEY",
            "PuTTY-User-Key-File-2",
        )
    },
    r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9-_]{70,}": Gate(("pypi-AgEIcHlwaS5vcmc",), run=70),
    r"pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9-_]{70,}": Gate(
        ("pypi-AgENdGVzdC5weXBpLm9yZw",), run=70
    ),
    r"SG\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9_-]{43}": Gate(("SG.",), run=43),
    r"xox(?:a|b|p|o|s|r)-(?:\d+-)+[a-z0-9]+": Gate(
        words=tuple(f"xox{c}-" for c in "abposr"), run=8
    ),
    r"https://hooks\.slack\.com/services/T[a-zA-Z0-9_]+/B[a-zA-Z0-9_]+/[a-zA-Z0-9_]+": Gate(
        words=("hooks.slack.com/services/",), run=16
    ),
    r"""(?:(?<=\W)|(?<=^))(?:\[|)(?:"|\'|)(?:softlayer|sl)(?:_|-|)(?:api|)(?:_|-|)(?:key|pwd|password|pass|token)(?:"|\'|)(?:\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:"|\'|)([a-z0-9]{64})(?:"|\'|)""": Gate(
        words=("softlayer", "sl"), run=64
    ),
    r"(?:http|https)://api.softlayer.com/soap/(?:v3|v3.1)/([a-z0-9]{64})": Gate(
        words=("softlayer",), run=64
    ),
    r"sq0csp-[0-9A-Za-z\\\-_]{43}": Gate(("sq0csp-",)),  # a backslash breaks a run
    r"(?:r|s)k_live_[0-9a-zA-Z]{24}": Gate(("k_live_",), run=24),
    r"\d{8,10}:[0-9A-Za-z_-]{35}": Gate(run=35),
    r"AC[a-z0-9]{32}": Gate(("AC",), run=34),
    r"SK[a-z0-9]{32}": Gate(("SK",), run=34),
    # secrets.EXTRA_PATTERNS
    r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)": Gate(
        ("-----BEGIN",)
    ),
    r"\b(?:github_pat|ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{22,}": Gate(
        ("github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_"), run=22
    ),
    r"\beyJ[A-Za-z0-9_=-]+\.eyJ[A-Za-z0-9_=-]+\.[A-Za-z0-9_=-]*": Gate(("eyJ",)),
    r"\bsk-ant-[a-z]+\d*-[A-Za-z0-9_-]{20,}": Gate(("sk-ant-",), run=20),
    r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}": Gate(
        ("sk-proj-", "sk-svcacct-", "sk-admin-"), run=20
    ),
    r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])": Gate(("AIza",), run=39),
    r"\bhf_[A-Za-z0-9]{30,}\b": Gate(("hf_",), run=33),
    r"\bnpm_[A-Za-z0-9]{36}\b": Gate(("npm_",), run=40),
    r"(?i)aws.{0,20}?(?:secret|key|token).{0,20}?[=:]\s*[\"']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])": Gate(
        words=("aws",), run=40
    ),
    r"\b(?i:secret|key)\b\W{1,3}((?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])"
    r"(?=[A-Za-z0-9/+]{0,39}\d)[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])": Gate(
        words=("secret", "key"), run=40
    ),
}


def _overlaps(found: str, other: str) -> bool:
    """Whether ``other`` can start inside an occurrence of ``found`` (or at its start): a
    scan that reports ``found`` there may have passed over ``other``."""
    return any(other.startswith(found[at : at + len(other)]) for at in range(len(found)))


class Prefilter:
    """The gates of some patterns, in one alternation: which of them can match a text."""

    def __init__(self, patterns: Sequence[re.Pattern[str]]) -> None:
        gates = [GATES.get(pattern.pattern) for pattern in patterns]
        self.ungated = frozenset(i for i, gate in enumerate(gates) if gate is None)
        self._runs = [0 if gate is None else gate.run for gate in gates]
        anchors = sorted({a for gate in gates if gate for a in gate.anchors}, key=lambda a: -len(a))
        self._anchors = re.compile("|".join(map(re.escape, anchors))) if anchors else None
        # A scan reports no match inside another, so each anchor it reports stands for
        # every anchor that may start inside it.
        self._opened_by = {
            found: frozenset(
                i
                for i, gate in enumerate(gates)
                if gate and any(_overlaps(found, other) for other in gate.anchors)
            )
            for found in anchors
        }
        # Gates of words, by the run they need (a word is looked for only past that).
        self._words = sorted(
            (gate.run, word, i) for i, gate in enumerate(gates) if gate for word in gate.words
        )
        self._run_only = sorted(
            (gate.run, i)
            for i, gate in enumerate(gates)
            if gate and not gate.anchors and not gate.words
        )
        shortest = min((run for run in self._runs if run), default=1)
        self._run = re.compile(f"{RUN}{{{shortest},}}")

    def open(self, text: str) -> list[int]:
        """The indexes of the patterns that may match in ``text``, in order."""
        folded = text if text.isascii() else text.translate(CASE_FOLDS)
        longest = max((len(run) for run in self._run.findall(folded)), default=0)
        opened = set(self.ungated)
        if self._anchors is not None:
            for anchor in self._anchors.findall(folded):
                opened |= self._opened_by[anchor]
        lowered = ""
        for run, word, i in self._words:
            if run > longest:
                break
            if i not in opened:
                lowered = lowered or folded.lower()
                if word in lowered:
                    opened.add(i)
        opened.update(i for run, i in self._run_only if run <= longest)
        return sorted(i for i in opened if self._runs[i] <= longest)
