"""rpki.rp `Validator.local`: the directory of a URI is remembered, and a URI whose last segment is
plain reuses it; the path (or the rejection) is the one a full parse of the URI gives."""

from __future__ import annotations

from bgpsim.rpki.errors import ObjectError
from bgpsim.rpki.rp import Validator

URIS = ["rsync://h/a/b.roa", "rsync://h/a/c.roa", "rsync://h/a?x/b.roa", "rsync://h/a?x/c.roa", "rsync://h/a#f/b.roa",
        "rsync://h/a#f/c.roa", "rsync://H/a/b.roa", "rsync://h//a//b.roa", "rsync://h//a//c.roa", "rsync://h/x.cer",
        "rsync://h/y.cer", "rsync://h/a/..", "rsync://h/a/.", "rsync://h/a/%2e%2e", "rsync://h/a\t/b.roa",
        "rsync://h/a\t/c.roa", "http://h/a/b.roa", "rsync:///a/b.roa", "rsync://h/a/b.roa/", "rsync://h/a/b.roa/c.roa",
        "rsync://h:873/a/b.roa", "rsync://h/a/.hidden", "rsync://h/a/b c.roa"]


def _paths(tmp_path, remember: bool) -> list[str]:
    v = Validator(tmp_path / "x.tal", tmp_path)
    out = []
    for uri in URIS * 2:
        if not remember:
            v.dirs.clear()
        try:
            out.append(str(v.local(uri)))
        except ObjectError as e:
            out.append(f"rejected: {e}")
    return out


def test_remembered_directories_give_the_same_paths(tmp_path):
    assert _paths(tmp_path, True) == _paths(tmp_path, False)
