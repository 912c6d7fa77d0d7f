"""Figures (matplotlib PNGs) and the self-contained HTML report of a run; see docs/viz.md.

One module per figure kind: `timeline` (where traffic goes and the diverted share, over simulated
time, on the time axis of `timeaxis`), `topology` (the picture of a small AS graph), `sweep` (success
against adoption), `outcome` (the converged state). `report` writes the page (template `report.html`),
`story` its summary in words; `style` holds the colours and words all of them share, `canvas` the
matplotlib side of saving. It draws; it does not compute routes: it imports only bgpsim.base and the
run's result types.
"""
