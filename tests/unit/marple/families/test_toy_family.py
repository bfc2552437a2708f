"""A family is a plug-in: a toy family written outside the package (a spec, a generator of items, one method),
installed only through the ``marple.families`` and ``marple.methods`` entry-point groups, runs through ``marple
generate``, ``evaluate``, ``report`` and ``benchmark`` with no change to the commands; its parser refuses an
option it does not take, and a method given an argument it does not take fails by name (exit 2)."""

from __future__ import annotations

import json
import textwrap

import pytest

from marple.cli.main import main
from marple.families import family, family_names, family_of

TOY = """
from dataclasses import dataclass

import numpy as np

from marple.families.base import Family
from marple_eval.items import ItemMethod


@dataclass(frozen=True)
class ParitySpec:
    seed: int = 0
    items: int = 30


class Even(ItemMethod):
    family, name = "parity", "even"

    def answer(self, item):
        return 0


class Parity(Family):
    name, spec, methods = "parity", ParitySpec, {"even": Even}

    def make_items(self, spec, split):
        numbers = np.random.default_rng([spec.seed, len(split)]).integers(0, 100, spec.items).tolist()
        for i, n in enumerate(numbers):
            yield {"id": f"{split}/{i}", "type": "small" if n < 50 else "large", "answer": n % 2, "n": n}
"""
PLUGIN_METHOD = '''
from marple_eval.items import ItemMethod


class Looks(ItemMethod):
    """Reads the number: the answer key of the toy family."""

    family, name, role = "parity", "looks", "answer_key"

    def __init__(self, offset: int = 0) -> None:
        self.offset = offset

    def answer(self, item):
        return (item["n"] + self.offset) % 2
'''


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The toy family and a method of it installed as an outside distribution would be: entry points only."""
    site = tmp_path / "site"
    (site / "toy_family-0.1.dist-info").mkdir(parents=True)
    (site / "toy_family.py").write_text(textwrap.dedent(TOY))
    (site / "toy_methods.py").write_text(textwrap.dedent(PLUGIN_METHOD))
    (site / "toy_family-0.1.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: toy-family\nVersion: 0.1\n"
    )
    (site / "toy_family-0.1.dist-info" / "entry_points.txt").write_text(
        "[marple.families]\nparity = toy_family:Parity\n\n[marple.methods]\nlooks = toy_methods:Looks\n"
    )
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(args: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = main(args)
    except SystemExit as exc:  # a parser refused an option
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_family_from_a_plugin_runs_through_generate_evaluate_report_and_benchmark(toy, capsys):
    assert "parity" in family_names() and family("parity").available_methods().keys() == {"even", "looks"}
    code, out, err = run(["generate", "--family", "parity", "--items", "40", "--seed", "3", "--no-progress"], capsys)
    assert code == 0, err
    assert family_of(toy / "data" / "parity").name == "parity"
    manifest = json.loads((toy / "data" / "parity" / "manifest.json").read_text())
    assert manifest["format"] == "marple-parity-items" and manifest["spec"] == {"family": "parity", "seed": 3,
                                                                                "items": 40}  # fmt: skip
    for method in ("even", "looks"):
        code, out, err = run(["evaluate", "--family", "parity", "--method", method, "--no-progress"], capsys)
        assert code == 0, err
        assert f"results: results/parity-{method}.json" in out and "| all | 40 |" in out
    looks = json.loads((toy / "results" / "parity-looks.json").read_text())
    assert looks["family"] == "parity" and looks["role"] == "answer_key" and looks["version"] == 3
    assert looks["scores"]["all"]["accuracy"] == 1.0
    code, out, err = run(["report", "results/parity-even.json", "results/parity-looks.json", "--plot", "p.png"], capsys)
    assert code == 0, err
    assert "| type | n | even | looks (answer key) |" in out and (toy / "p.png").stat().st_size > 0
    code, out, err = run(["benchmark", "--family", "parity", "--out", "bench", "--no-progress"], capsys)
    assert code == 0, err
    assert "| type | n | even | looks (answer key) |" in (toy / "bench" / "table.md").read_text()


def test_the_toy_familys_parser_refuses_what_it_does_not_take_and_its_method_an_unknown_argument(toy, capsys):
    code, _, err = run(["generate", "--family", "parity", "--scenario", "laundry"], capsys)
    assert code == 2 and "--scenario laundry: not an option of --family parity" in err
    assert run(["generate", "--family", "parity", "--items", "5", "--no-progress"], capsys)[0] == 0
    argv = ["evaluate", "--family", "parity", "--method", "looks", "--method-arg", "zzz=1", "--out", "r.json"]
    code, _, err = run(argv, capsys)
    assert code == 2 and "parity method 'looks' takes no argument zzz (its arguments: offset)" in err
    assert not (toy / "r.json").exists()
    code, _, err = run(["train", "--family", "parity"], capsys)
    assert code == 2 and "--family parity: none of its methods is trained" in err
