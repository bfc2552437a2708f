"""The belief and expectation families in the application: a question or trial set scored by a method
(``marple evaluate --family``), their learned models trained on a set's training split (``marple train
--family``), and the one command from nothing to the table (``marple benchmark --family``)."""
