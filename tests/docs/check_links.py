#!/usr/bin/env python3
"""Every relative link of the project's Markdown pages points at a file or folder that exists, and
every #anchor at a heading of the page it names (GitHub's anchor rule: lower case, punctuation
dropped, spaces to hyphens). Also: no page under docs/ has an issue number in its title, and docs/
holds only the agreed folders. Exit 0 when all hold, 1 with one line per broken link otherwise.

Usage: check_links.py ROOT [FILE.md ...]   (files default to every tracked-looking *.md under ROOT)
"""
import os
import re
import sys

LINK = re.compile(r'(?<!\!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)')
HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')
DOC_FOLDERS = {'families', 'guides', 'reference'}


def anchors(path, cache={}):
    if path not in cache:
        found = set()
        counts = {}
        in_code = False
        with open(path, encoding='utf-8') as f:
            for line in f:
                if line.startswith('```'):
                    in_code = not in_code
                    continue
                m = None if in_code else HEADING.match(line)
                if not m:
                    continue
                text = re.sub(r'`|\*|_(?=\w)|(?<=\w)_', '', m.group(2))
                text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)
                slug = re.sub(r'[^\w\- ]', '', text.lower()).replace(' ', '-')
                n = counts.get(slug, 0)
                counts[slug] = n + 1
                found.add(slug if n == 0 else f'{slug}-{n}')
        cache[path] = found
    return cache[path]


def pages(root):
    skip = {'.git', 'build'}
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x not in skip and not x.startswith(('build-', '.'))
                   and os.path.join(d, x) != os.path.join(root, 'tests', 'docs', 'broken')]
        for f in files:
            if f.endswith('.md'):
                yield os.path.join(d, f)


def check(root, files):
    problems = []
    for page in files:
        rel_page = os.path.relpath(page, root)
        with open(page, encoding='utf-8') as f:
            text = f.read()
        text_wo_code = re.sub(r'```.*?```', '', text, flags=re.S)
        for m in LINK.finditer(text_wo_code):
            target = m.group(1) or m.group(2)
            if re.match(r'^[a-zA-Z][a-zA-Z+.-]*:', target):
                continue  # http:, mailto:, ...
            path, _, frag = target.partition('#')
            dest = page if not path else os.path.normpath(os.path.join(os.path.dirname(page), path))
            if not os.path.exists(dest):
                problems.append(f'{rel_page}: link to {target}: no such file')
                continue
            if frag and dest.endswith('.md') and frag not in anchors(dest):
                problems.append(f'{rel_page}: link to {target}: no heading #{frag} in '
                                f'{os.path.relpath(dest, root)}')
    docs = os.path.join(root, 'docs')
    if os.path.isdir(docs):
        for entry in sorted(os.listdir(docs)):
            full = os.path.join(docs, entry)
            if os.path.isdir(full) and entry not in DOC_FOLDERS:
                problems.append(f'docs/{entry}/: not one of the folders {sorted(DOC_FOLDERS)}')
            if os.path.isfile(full) and entry not in ('architecture.md', 'README.md'):
                problems.append(f'docs/{entry}: pages live in docs/{{families,guides,reference}}/')
        for page in pages(docs):
            with open(page, encoding='utf-8') as f:
                first = f.readline()
            if re.search(r'\bissue\s+#?\d+', first, re.I):
                problems.append(f'{os.path.relpath(page, root)}: title names an issue: {first.strip()}')
    return problems


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    root = os.path.abspath(sys.argv[1])
    files = [os.path.abspath(f) for f in sys.argv[2:]] or sorted(pages(root))
    problems = check(root, files)
    for p in problems:
        print(p)
    print(f'check_links: {len(files)} pages, {len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
