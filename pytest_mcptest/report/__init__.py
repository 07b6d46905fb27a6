"""What a run says to people: the JSON report and everything drawn from it.

``document`` builds and reads the JSON report; ``compare`` says which changes between two
reports are real; ``merge`` joins CI shards; ``render`` and ``matrix`` write the terminal's
text; ``markdown``, ``html`` and ``charts`` the files for pull requests and browsers. They read
verdicts and report entries only, never a recording, so every output of one run agrees.
"""
