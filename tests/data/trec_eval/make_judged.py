"""Write judged.qrels and judged.run: rankings with ties, short and empty ones, negative,
zero and unjudged labels, for trec_eval's judgement measures (``unj_K``, ``-l 0``).

Run from this folder, then record trec_eval 10.0's outputs (see README.md)."""

import random

rng = random.Random(20)
docs = [f"d{i}" for i in range(25)]
qrels, run = [], []
for q in range(40):
    query = f"q{q}"
    judged = rng.sample(docs, rng.randint(1, 12))
    labels = {d: rng.choice([-1, 0, 0, 1, 2]) for d in judged}
    labels[judged[0]] = rng.choice([1, 2])  # trec_eval needs a label >= 0 in each query
    if q % 13 != 5:  # a few queries only in the run
        qrels += [f"{query} 0 {d} {v}" for d, v in labels.items()]
    if q % 11 != 3:  # a few queries only in the qrels
        ranked = rng.sample(docs, rng.randint(1, 15))
        run += [f"{query} Q0 {d} {r} {rng.randint(0, 4)} t" for r, d in enumerate(ranked, 1)]
with open("judged.qrels", "w") as f:
    f.write("\n".join(qrels) + "\n")
with open("judged.run", "w") as f:
    f.write("\n".join(run) + "\n")
