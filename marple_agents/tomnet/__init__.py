"""The learned surprise rater for expectation trials: a character net over the familiarisation and a prediction
net for the test's actions, trained with Lightning (AGENT's ToMnet-G, on our household's trials); without the
familiarisation, the shortcut panel's learned rule."""

from marple_agents.tomnet.network import ToMnet, ToMnetConfig
from marple_agents.tomnet.rater import TestOnlyToMnetMethod, ToMnetMethod, train_tomnet

__all__ = ["TestOnlyToMnetMethod", "ToMnet", "ToMnetConfig", "ToMnetMethod", "train_tomnet"]
