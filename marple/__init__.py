"""MARPLE-Gym's application: the ``marple`` command and what it runs, above the three libraries.

* :mod:`marple.cli`: every command line (``marple generate``, ``play``, ``replay``, ``study``, ``train``,
  ``evaluate``, ``report``, ``benchmark``, ...); ``python -m marple`` runs it too;
* :mod:`marple.runner`: the one model runner, which builds an inference method, wires its resources, places it
  on its device and runs the protocol (``marple evaluate``, ``marple benchmark`` and simulated study participants);
* :mod:`marple.evaluation`: a ``marple evaluate`` request (a method on a dataset's trials, a dry run);
* :mod:`marple.study`: the human study, on the desktop and in the browser, its server and the scoring of answers;
* :mod:`marple.viewers`: playing an environment with the keyboard, replaying episodes as videos;
* :mod:`marple.benchmark`: ``marple benchmark``, from nothing to a scored benchmark.

It imports the libraries directly: :mod:`marple_gym` (the household world and its Gymnasium, PettingZoo,
dataset and rendering faces), :mod:`marple_eval` (the evaluation protocol, no torch) and :mod:`marple_agents`
(learned agent models and their inference); none of them imports it.
"""

from marple_gym.version import __version__ as __version__
