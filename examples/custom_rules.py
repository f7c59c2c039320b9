"""Load your own .rules file next to the shipped library, check it, and use it."""

from pathlib import Path

import eqsat

rules = Path(__file__).with_name("trig.rules")
for verdict in eqsat.check_rules([rules]):   # every rule sampled numerically
    print(verdict)
print(eqsat.simplify("2*cos(t)^2 - 1", rules=[rules]))      # cos(2*t)
print(eqsat.simplify("sin(u)/(1 + cos(u))", rules=[rules]))  # tan(u/2)

engine = eqsat.Engine([rules])               # compile once, query many times
with engine.session() as session:
    handle = session.add(eqsat.parse("2*cos(z)^2 - 1 + sin(z)^2 + cos(z)^2"))
    report = session.run(["simplify"])
    print(session.extract(handle)[0], "--", report.stop_reason)
