"""Every family's items for the tools language-model researchers use: a Hugging Face ``datasets`` folder
(Parquet, a dataset card, the frames as images), lm-evaluation-harness tasks and Inspect tasks, written from a
set by ``marple export --family ... --format datasets|harness``. See docs/harness.md.

* :mod:`.items`: what one item is, per family (the text condition as the project's LLM methods ask it, the
  options, the answer, the frames);
* :mod:`.datasets_export`: the ``datasets`` folder;
* :mod:`.lm_eval_tasks`: lm-evaluation-harness task files (and the metrics they call back);
* :mod:`.inspect_tasks`: Inspect tasks over an export folder (needs the ``harness`` extra);
* :mod:`.export`: one family's set to a folder (each family's ``marple export`` offers it as two formats).
"""

from marple_eval.harness.export import FORMATS, belief_export, expectation_export, export_items, whodunit_export
from marple_eval.harness.items import Item, belief_items, expectation_items, whodunit_items

__all__ = [
    "FORMATS",
    "Item",
    "belief_export",
    "belief_items",
    "expectation_export",
    "expectation_items",
    "export_items",
    "whodunit_export",
    "whodunit_items",
]
