"""The character classes of BERT's normalizer and pre-tokenizer, as Hugging Face runs them.

Hugging Face ``tokenizers`` (the reference ``digest.identity.wordpiece`` matches) decides
"control character", "non-spacing mark" and "punctuation" with Unicode 8.0 tables, and never
counts an unassigned code point as a control character. Python's ``unicodedata`` is newer
(14.0 in Python 3.11) and changes with each Python, so the classes are written out here as
code point ranges (hexadecimal, inclusive), read from the reference itself: each is the set of
code points ``c`` for which it tokenizes ``a<c>b`` that way (all of U+0000-U+10FFFF but
surrogates were tried).
"""

from __future__ import annotations

import re
from bisect import bisect_right

#: removed by the normalizer: control, format and private-use characters (Cc, Cf, Co), U+FFFD,
#: and non-spacing marks (Mn, removed after NFD; what strips accents)
_DROP = """
0000-0008 000B-000C 000E-001F 007F-009F 00AD 0300-036F 0483-0487 0591-05BD 05BF 05C1-05C2
05C4-05C5 05C7 0600-0605 0610-061A 061C 064B-065F 0670 06D6-06DD 06DF-06E4 06E7-06E8
06EA-06ED 070F 0711 0730-074A 07A6-07B0 07EB-07F3 0816-0819 081B-0823 0825-0827 0829-082D
0859-085B 08E3-0902 093A 093C 0941-0948 094D 0951-0957 0962-0963 0981 09BC 09C1-09C4 09CD
09E2-09E3 0A01-0A02 0A3C 0A41-0A42 0A47-0A48 0A4B-0A4D 0A51 0A70-0A71 0A75 0A81-0A82 0ABC
0AC1-0AC5 0AC7-0AC8 0ACD 0AE2-0AE3 0B01 0B3C 0B3F 0B41-0B44 0B4D 0B56 0B62-0B63 0B82 0BC0
0BCD 0C00 0C3E-0C40 0C46-0C48 0C4A-0C4D 0C55-0C56 0C62-0C63 0C81 0CBC 0CBF 0CC6 0CCC-0CCD
0CE2-0CE3 0D01 0D41-0D44 0D4D 0D62-0D63 0DCA 0DD2-0DD4 0DD6 0E31 0E34-0E3A 0E47-0E4E 0EB1
0EB4-0EB9 0EBB-0EBC 0EC8-0ECD 0F18-0F19 0F35 0F37 0F39 0F71-0F7E 0F80-0F84 0F86-0F87
0F8D-0F97 0F99-0FBC 0FC6 102D-1030 1032-1037 1039-103A 103D-103E 1058-1059 105E-1060
1071-1074 1082 1085-1086 108D 109D 135D-135F 1712-1714 1732-1734 1752-1753 1772-1773
17B4-17B5 17B7-17BD 17C6 17C9-17D3 17DD 180B-180E 18A9 1920-1922 1927-1928 1932 1939-193B
1A17-1A18 1A1B 1A56 1A58-1A5E 1A60 1A62 1A65-1A6C 1A73-1A7C 1A7F 1AB0-1ABD 1B00-1B03 1B34
1B36-1B3A 1B3C 1B42 1B6B-1B73 1B80-1B81 1BA2-1BA5 1BA8-1BA9 1BAB-1BAD 1BE6 1BE8-1BE9 1BED
1BEF-1BF1 1C2C-1C33 1C36-1C37 1CD0-1CD2 1CD4-1CE0 1CE2-1CE8 1CED 1CF4 1CF8-1CF9 1DC0-1DF5
1DFC-1DFF 200B-200F 202A-202E 2060-2064 2066-206F 20D0-20DC 20E1 20E5-20F0 2CEF-2CF1 2D7F
2DE0-2DFF 302A-302D 3099-309A A66F A674-A67D A69E-A69F A6F0-A6F1 A802 A806 A80B A825-A826
A8C4 A8E0-A8F1 A926-A92D A947-A951 A980-A982 A9B3 A9B6-A9B9 A9BC A9E5 AA29-AA2E AA31-AA32
AA35-AA36 AA43 AA4C AA7C AAB0 AAB2-AAB4 AAB7-AAB8 AABE-AABF AAC1 AAEC-AAED AAF6 ABE5 ABE8
ABED E000-F8FF FB1E FE00-FE0F FE20-FE2F FEFF FFF9-FFFB FFFD 101FD 102E0 10376-1037A
10A01-10A03 10A05-10A06 10A0C-10A0F 10A38-10A3A 10A3F 10AE5-10AE6 11001 11038-11046
1107F-11081 110B3-110B6 110B9-110BA 110BD 11100-11102 11127-1112B 1112D-11134 11173
11180-11181 111B6-111BE 111CA-111CC 1122F-11231 11234 11236-11237 112DF 112E3-112EA
11300-11301 1133C 11340 11366-1136C 11370-11374 114B3-114B8 114BA 114BF-114C0 114C2-114C3
115B2-115B5 115BC-115BD 115BF-115C0 115DC-115DD 11633-1163A 1163D 1163F-11640 116AB 116AD
116B0-116B5 116B7 1171D-1171F 11722-11725 11727-1172B 16AF0-16AF4 16B30-16B36 16F8F-16F92
1BC9D-1BC9E 1BCA0-1BCA3 1D167-1D169 1D173-1D182 1D185-1D18B 1D1AA-1D1AD 1D242-1D244
1DA00-1DA36 1DA3B-1DA6C 1DA75 1DA84 1DA9B-1DA9F 1DAA1-1DAAF 1E8D0-1E8D6 E0001 E0020-E007F
E0100-E01EF F0000-FFFFD 100000-10FFFD
"""

#: a token of its own: ASCII punctuation and Unicode punctuation (P*), outside the CJK blocks
#: (which are padded with spaces anyway)
_PUNCTUATION = """
0021-002F 003A-0040 005B-0060 007B-007E 00A1 00A7 00AB 00B6-00B7 00BB 00BF 037E 0387
055A-055F 0589-058A 05BE 05C0 05C3 05C6 05F3-05F4 0609-060A 060C-060D 061B 061E-061F
066A-066D 06D4 0700-070D 07F7-07F9 0830-083E 085E 0964-0965 0970 0AF0 0DF4 0E4F 0E5A-0E5B
0F04-0F12 0F14 0F3A-0F3D 0F85 0FD0-0FD4 0FD9-0FDA 104A-104F 10FB 1360-1368 1400 166D-166E
169B-169C 16EB-16ED 1735-1736 17D4-17D6 17D8-17DA 1800-180A 1944-1945 1A1E-1A1F 1AA0-1AA6
1AA8-1AAD 1B5A-1B60 1BFC-1BFF 1C3B-1C3F 1C7E-1C7F 1CC0-1CC7 1CD3 1FEF 2010-2027 2030-2043
2045-2051 2053-205E 207D-207E 208D-208E 2260 226E-226F 2308-230B 2329-232A 2768-2775
27C5-27C6 27E6-27EF 2983-2998 29D8-29DB 29FC-29FD 2CF9-2CFC 2CFE-2CFF 2D70 2E00-2E2E
2E30-2E42 3001-3003 3008-3011 3014-301F 3030 303D 30A0 30FB A4FE-A4FF A60D-A60F A673 A67E
A6F2-A6F7 A874-A877 A8CE-A8CF A8F8-A8FA A8FC A92E-A92F A95F A9C1-A9CD A9DE-A9DF AA5C-AA5F
AADE-AADF AAF0-AAF1 ABEB FD3E-FD3F FE10-FE19 FE30-FE52 FE54-FE61 FE63 FE68 FE6A-FE6B
FF01-FF03 FF05-FF0A FF0C-FF0F FF1A-FF1B FF1F-FF20 FF3B-FF3D FF3F FF5B FF5D FF5F-FF65
10100-10102 1039F 103D0 1056F 10857 1091F 1093F 10A50-10A58 10A7F 10AF0-10AF6 10B39-10B3F
10B99-10B9C 11047-1104D 110BB-110BC 110BE-110C1 11140-11143 11174-11175 111C5-111C9 111CD
111DB 111DD-111DF 11238-1123D 112A9 114C6 115C1-115D7 11641-11643 1173C-1173E 12470-12474
16A6E-16A6F 16AF5 16B37-16B3B 16B44 1BC9F 1DA87-1DA8B
"""


def _parse(table: str) -> tuple[list[int], list[int]]:
    starts: list[int] = []
    ends: list[int] = []
    for item in table.split():
        low, _, high = item.partition("-")
        starts.append(int(low, 16))
        ends.append(int(high or low, 16))
    return starts, ends


_DROP_STARTS, _DROP_ENDS = _parse(_DROP)
_PUNCTUATION_STARTS, _PUNCTUATION_ENDS = _parse(_PUNCTUATION)


def _in(code: int, starts: list[int], ends: list[int]) -> bool:
    i = bisect_right(starts, code) - 1
    return i >= 0 and code <= ends[i]


def _regex_class(pairs: list[tuple[int, int]]) -> str:
    items = (f"\\U{low:08x}" + (f"-\\U{high:08x}" if high > low else "") for low, high in pairs)
    return "[" + "".join(items) + "]"


def _regex(starts: list[int], ends: list[int]) -> re.Pattern[str]:
    """The code points of the ranges as one regular expression: the BMP's as a class of its
    own (compiled to a bitmap, one look-up a character), the others only tried for a
    character beyond the BMP (their class is a list of ranges, scanned in turn)."""
    ranges = list(zip(starts, ends, strict=True))
    bmp = [(low, min(high, 0xFFFF)) for low, high in ranges if low <= 0xFFFF]
    astral = [(max(low, 0x10000), high) for low, high in ranges if high > 0xFFFF]
    return re.compile(f"{_regex_class(bmp)}|(?=[\\U00010000-\\U0010ffff]){_regex_class(astral)}")


#: the characters ``is_dropped`` finds, as a regular expression (a pass over a whole text)
DROPPED = _regex(_DROP_STARTS, _DROP_ENDS)


def is_dropped(char: str) -> bool:
    """Does the normalizer remove ``char`` (a control, format or private-use character, U+FFFD,
    or a non-spacing mark)?"""
    return _in(ord(char), _DROP_STARTS, _DROP_ENDS)


def is_punctuation(char: str) -> bool:
    """Is ``char`` a token of its own for the pre-tokenizer (outside the CJK blocks)?"""
    return _in(ord(char), _PUNCTUATION_STARTS, _PUNCTUATION_ENDS)
