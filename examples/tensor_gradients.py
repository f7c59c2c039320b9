"""Tensor expressions: shapes, a matrix chain in its cheap order, stable softmax forms, and
gradients by reverse mode, compiled to NumPy and checked against finite differences."""

import numpy as np

import eqsat
from eqsat import tensor

# shapes are checked as NumPy would, naming the op and both shapes
A, B, C = tensor("A", (500, 10)), tensor("B", (10, 500)), tensor("C", (500, 3))
try:
    eqsat.parse("A @ C", [A, C])
except eqsat.ShapeError as error:
    print(error)

# a matrix chain: the cost model counts multiply-adds from the shapes
print(eqsat.simplify(A @ B @ C))                     # A@(B@C)

# a softmax classifier's loss, and its gradient in the weights
X, W = tensor("X", ("batch", "features")), tensor("W", ("features", "classes"))
loss = eqsat.parse("sum(log(sum(exp(X @ W), axis=1)))", [X, W])
gradient = eqsat.grad(loss, W)
print(gradient)                                      # X.T@softmax(X@W, axis=1)

kernel = eqsat.compile(gradient, ["X", "W"])
rng = np.random.default_rng(0)
xs, ws = rng.normal(size=(8, 4)), rng.normal(size=(4, 3))
got = kernel(xs, ws)

step = 1e-6  # central differences of the loss, one weight at a time
numeric = np.zeros_like(ws)
for index in np.ndindex(ws.shape):
    up, down = ws.copy(), ws.copy()
    up[index] += step
    down[index] -= step
    numeric[index] = (eqsat.evaluate(loss, X=xs, W=up) - eqsat.evaluate(loss, X=xs, W=down)) / (
        2 * step)
print(np.allclose(got, numeric, atol=1e-6))          # True

# the stable form stays finite where the naive one overflows
print(np.isfinite(kernel(xs, ws * 1000)).all())      # True
