"""Prints the one code block of LANGUAGE between a README's SECTION markers
(`<!-- SECTION-START ... -->` and `<!-- SECTION-END -->`), the block the
README tests run: `python3 scripts/readme-block.py README.md PY python`."""

import re
import sys

readme, section, language = sys.argv[1:4]
text = open(readme, encoding="utf-8").read()
found = re.search(rf"<!-- {section}-SECTION-START.*?-->(.*?)<!-- {section}-SECTION-END -->", text, re.S)
if not found:
    sys.exit(f"{readme} has no {section}-SECTION markers")
blocks = re.findall(rf"```{language}\n(.*?)```", found.group(1), re.S)
if len(blocks) != 1:
    sys.exit(f"{readme}'s {section} section has {len(blocks)} {language} blocks, not one")
sys.stdout.write(blocks[0])
