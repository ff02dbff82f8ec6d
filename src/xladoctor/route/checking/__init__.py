"""What ``check`` does to each input, below the commands so ``fleet`` (and the pipeline) run it too.

* :mod:`.walk`: which paths a directory holds and which of them are skipped.
* :mod:`.stream`: one file or stream read, sniffed (HLO module or log) and checked.
* :mod:`.entries`: the JSON entry of each kind (analysed module, triaged module, log).
"""
