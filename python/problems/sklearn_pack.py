#!/usr/bin/python3
"""Bayesmark's scikit-learn hyperparameter-tuning grid, served as a bbo-arena external problem.

Each problem is one (model, data set, metric) triple, named as Bayesmark names its test cases,
e.g. "DT_iris_nll" or "MLP-adam_diabetes_mse". The objective is Bayesmark's: the mean loss over
5-fold cross-validation on the training 80 % of the data; the loss on the held-out 20 % is
reported as "generalization". See docs/external-problems.md for the protocol, the exact
procedure and where it differs from Bayesmark under scikit-learn 1.2.

Usage (Debian's /usr/bin/python3 with python3-sklearn):
  sklearn_pack.py --list                    one problem name per line
  sklearn_pack.py --describe NAME           the describe reply of NAME, then exit
  sklearn_pack.py --describe-all            every problem's describe reply (a JSON list), fast:
                                            no data set is loaded
  sklearn_pack.py --problem NAME            serve NAME over stdin/stdout (bbo-problem/1)
Options: --random-state N|none (default 0), --shuffle-seed N (default 0).
"""
import argparse
import json
import math
import os
import sys
import traceback
import warnings

# One evaluation uses one core: the coordinator runs evaluations in parallel by running several
# processes, and a single-threaded BLAS keeps results independent of the machine's core count.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from sklearn import datasets  # noqa: E402
from sklearn.base import BaseEstimator, TransformerMixin  # noqa: E402
from sklearn.ensemble import (  # noqa: E402
    AdaBoostClassifier, AdaBoostRegressor, RandomForestClassifier, RandomForestRegressor)
from sklearn.linear_model import Lasso, LogisticRegression, Ridge  # noqa: E402
from sklearn.metrics import get_scorer  # noqa: E402
from sklearn.model_selection import cross_val_score, train_test_split  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor  # noqa: E402
from sklearn.neural_network import MLPClassifier, MLPRegressor  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.svm import SVC, SVR  # noqa: E402
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor  # noqa: E402

PROTOCOL = "bbo-problem/1"
CV_FOLDS = 5
TEST_FRACTION = 0.2


def _real(lo, hi, space="linear"):
    return {"type": "real", "space": space, "range": [lo, hi]}


def _int(lo, hi, space="linear"):
    return {"type": "int", "space": space, "range": [lo, hi]}


_BOOL = {"type": "bool"}

# Search spaces, re-derived from Bayesmark's documented model configurations.
_KNN = {"n_neighbors": _int(1, 25), "p": _int(1, 4)}
_SVM = {"C": _real(1.0, 1e3, "log"), "gamma": _real(1e-4, 1e-3, "log"),
        "tol": _real(1e-5, 1e-1, "log")}
_TREE = {
    "max_depth": _int(1, 15),
    "max_features": _real(0.01, 0.99, "logit"),
    "min_impurity_decrease": _real(0.0, 0.5),
    "min_samples_leaf": _real(0.01, 0.49, "logit"),
    "min_samples_split": _real(0.01, 0.99, "logit"),
    "min_weight_fraction_leaf": _real(0.01, 0.49, "logit"),
}
_MLP_COMMON = {
    "alpha": _real(1e-5, 1e1, "log"),
    "batch_size": _int(10, 250),
    "hidden_layer_sizes": _int(50, 200),
    "learning_rate_init": _real(1e-5, 1e-1, "log"),
    "tol": _real(1e-5, 1e-1, "log"),
    "validation_fraction": _real(0.1, 0.9, "logit"),
}
_MLP_ADAM = dict(_MLP_COMMON, beta_1=_real(0.5, 0.99, "logit"),
                 beta_2=_real(0.9, 1.0 - 1e-6, "logit"), epsilon=_real(1e-9, 1e-6, "log"))
_MLP_SGD = dict(_MLP_COMMON, momentum=_real(0.001, 0.999, "logit"),
                power_t=_real(0.1, 0.9, "logit"))
_ADA = {"learning_rate": _real(1e-4, 1e1, "log"), "n_estimators": _int(10, 100)}
_LOGISTIC = {"C": _real(1e-2, 1e2, "log"), "intercept_scaling": _real(1e-2, 1e2, "log")}
_LASSO_REG = {"alpha": _real(1e-2, 1e2, "log"), "fit_intercept": _BOOL,
              "max_iter": _int(10, 5000, "log"), "normalize": _BOOL,
              "positive": _BOOL, "tol": _real(1e-5, 1e-1, "log")}
_RIDGE_REG = {"alpha": _real(1e-2, 1e2, "log"), "fit_intercept": _BOOL,
              "max_iter": _int(10, 5000, "log"), "normalize": _BOOL,
              "tol": _real(1e-4, 1e-1, "log")}

_SGD_FIXED = {"solver": "sgd", "early_stopping": True, "learning_rate": "invscaling",
              "nesterovs_momentum": True}

# model name -> (estimator class, fixed keyword arguments, api_config), per problem type.
MODELS_CLF = {
    "kNN": (KNeighborsClassifier, {}, _KNN),
    "SVM": (SVC, {"kernel": "rbf", "probability": True}, _SVM),
    "DT": (DecisionTreeClassifier, {"max_leaf_nodes": None}, _TREE),
    "RF": (RandomForestClassifier, {"n_estimators": 10, "max_leaf_nodes": None}, _TREE),
    "MLP-adam": (MLPClassifier, {"solver": "adam", "early_stopping": True}, _MLP_ADAM),
    "MLP-sgd": (MLPClassifier, _SGD_FIXED, _MLP_SGD),
    "ada": (AdaBoostClassifier, {}, _ADA),
    "lasso": (LogisticRegression, {"penalty": "l1", "fit_intercept": True,
                                   "solver": "liblinear", "multi_class": "ovr"}, _LOGISTIC),
    "linear": (LogisticRegression, {"penalty": "l2", "fit_intercept": True,
                                    "solver": "liblinear", "multi_class": "ovr"}, _LOGISTIC),
}
MODELS_REG = {
    "kNN": (KNeighborsRegressor, {}, _KNN),
    "SVM": (SVR, {"kernel": "rbf"}, _SVM),
    "DT": (DecisionTreeRegressor, {"max_leaf_nodes": None}, _TREE),
    "RF": (RandomForestRegressor, {"n_estimators": 10, "max_leaf_nodes": None}, _TREE),
    "MLP-adam": (MLPRegressor, {"solver": "adam", "early_stopping": True}, _MLP_ADAM),
    # Bayesmark: "regression crashes often with relu".
    "MLP-sgd": (MLPRegressor, dict(_SGD_FIXED, activation="tanh"), _MLP_SGD),
    "ada": (AdaBoostRegressor, {}, _ADA),
    "lasso": (Lasso, {}, _LASSO_REG),
    "linear": (Ridge, {"solver": "auto"}, _RIDGE_REG),
}

_BOSTON_CSV = os.path.join(os.path.dirname(datasets.__file__), "data", "boston_house_prices.csv")


def _load_boston():
    # load_boston was removed in scikit-learn 1.2; Debian still ships its CSV file (first line
    # "n_samples,n_features", second the column names, target MEDV last), which is all the old
    # loader read.
    table = np.loadtxt(_BOSTON_CSV, delimiter=",", skiprows=2, dtype=np.float64)
    return table[:, :-1], table[:, -1]


DATASETS = {  # name -> (loader returning (X, y), is_classification)
    "breast": (lambda: datasets.load_breast_cancer(return_X_y=True), True),
    "digits": (lambda: datasets.load_digits(return_X_y=True), True),
    "iris": (lambda: datasets.load_iris(return_X_y=True), True),
    "wine": (lambda: datasets.load_wine(return_X_y=True), True),
    "boston": (_load_boston, False),
    "diabetes": (lambda: datasets.load_diabetes(return_X_y=True), False),
}
METRICS_CLF = ("nll", "acc")
METRICS_REG = ("mae", "mse")
SCORER_NAMES = {"nll": "neg_log_loss", "acc": "accuracy",
                "mae": "neg_mean_absolute_error", "mse": "neg_mean_squared_error"}
METRIC_TEXT = {"nll": "negative log-likelihood (log loss)", "acc": "-accuracy",
               "mae": "mean absolute error", "mse": "mean squared error"}


class CenterAndL2Scale(TransformerMixin, BaseEstimator):
    """What normalize=True did in Lasso/Ridge before scikit-learn 1.2: subtract each column's
    mean and divide by the L2 norm of the centred column (sqrt(n * variance); 1 where that is
    below 10 machine epsilons)."""

    def fit(self, X, y=None):
        X = np.asarray(X, dtype=np.float64)
        self.mean_ = X.mean(axis=0)
        scale = np.sqrt(((X - self.mean_) ** 2).sum(axis=0))
        scale[scale < 10 * np.finfo(np.float64).eps] = 1.0
        self.scale_ = scale
        return self

    def transform(self, X):
        return (np.asarray(X, dtype=np.float64) - self.mean_) / self.scale_


def problem_names():
    names = []
    for dataset, (_, is_clf) in DATASETS.items():
        models = MODELS_CLF if is_clf else MODELS_REG
        for model in models:
            for metric in (METRICS_CLF if is_clf else METRICS_REG):
                names.append("%s_%s_%s" % (model, dataset, metric))
    return sorted(names)


def _attributes(model, api_config, metric):
    kinds = {spec["type"] for spec in api_config.values()}
    attrs = []
    if kinds == {"int"}:
        attrs.append("integer")
    elif "int" in kinds or "bool" in kinds:
        attrs.append("mixed integer")
    if metric == "acc":
        attrs.append("discrete valued")
    if model in ("DT", "RF", "ada"):
        attrs.append("nonsmooth")
    return attrs


def describe(name, random_state=0):
    """The describe reply of problem `name`, without loading its data set."""
    model, dataset, metric = name.rsplit("_", 2)
    is_clf = DATASETS[dataset][1]
    estimator, _, api_config = (MODELS_CLF if is_clf else MODELS_REG)[model]
    return {
        "protocol": PROTOCOL,
        "name": name,
        "api_config": api_config,
        "description": "scikit-learn %s %s on %s: %d-fold CV %s (Bayesmark %s, random_state=%s)" % (
            sklearn.__version__, estimator.__name__, dataset, CV_FOLDS, METRIC_TEXT[metric],
            name, random_state),
        "known_optimum": None,
        "attributes": _attributes(model, api_config, metric),
        "family": "sklearn",
    }


class SklearnProblem:
    """One (model, data set, metric) problem with its fixed train/test split."""

    def __init__(self, name, random_state=0, shuffle_seed=0):
        if name not in problem_names():
            raise KeyError("unknown problem %r (see --list)" % name)
        model, dataset, metric = name.rsplit("_", 2)
        loader, is_clf = DATASETS[dataset]
        self.name, self.model, self.dataset, self.metric = name, model, dataset, metric
        self.estimator, self.fixed, self.api_config = (MODELS_CLF if is_clf else MODELS_REG)[model]
        self.random_state = random_state
        self.scorer = get_scorer(SCORER_NAMES[metric])
        X, y = loader()
        self.X, self.Xt, self.y, self.yt = train_test_split(
            X, y, test_size=TEST_FRACTION, random_state=shuffle_seed, shuffle=True)

    def describe(self):
        return describe(self.name, self.random_state)

    def make_model(self, params):
        missing = sorted(set(self.api_config) - set(params))
        extra = sorted(set(params) - set(self.api_config))
        if missing or extra:
            raise ValueError("point has missing %s / unexpected %s parameters" % (missing, extra))
        kwargs = dict(params)
        kwargs.update(self.fixed)
        if self.random_state is not None and "random_state" in self.estimator().get_params():
            kwargs["random_state"] = self.random_state
        normalize = kwargs.pop("normalize", False)
        model = self.estimator(**kwargs)
        # normalize was ignored when fit_intercept was False.
        if normalize and kwargs.get("fit_intercept", True):
            model = Pipeline([("normalize", CenterAndL2Scale()), ("model", model)])
        return model

    def evaluate(self, params):
        """Returns (cv_loss, generalization_loss); raises when either is not finite."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scores = cross_val_score(self.make_model(params), self.X, self.y,
                                     scoring=self.scorer, cv=CV_FOLDS)
            cv_loss = -float(np.mean(scores))
            model = self.make_model(params)
            model.fit(self.X, self.y)
            generalization = -float(self.scorer(model, self.Xt, self.yt))
        if not (math.isfinite(cv_loss) and math.isfinite(generalization)):
            raise ValueError("loss not finite: cv %r, generalization %r" % (cv_loss, generalization))
        return cv_loss, generalization


def _number(x):
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def serve(problem, inp, out):
    """Answers bbo-problem/1 requests from `inp` on `out` until "exit" or end of input."""
    def reply(obj, request):
        if isinstance(request, dict) and "id" in request:
            obj["id"] = request["id"]
        out.write(json.dumps(obj, allow_nan=False) + "\n")
        out.flush()

    for line in inp:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            kind = request.get("type")
        except (ValueError, AttributeError) as e:
            reply({"error": "request is not a JSON object: %s" % e}, None)
            continue
        if kind == "describe":
            reply(problem.describe(), request)
        elif kind == "evaluate":
            points = request.get("points")
            if not isinstance(points, list):
                reply({"error": "evaluate: \"points\" must be a list"}, request)
                continue
            values, generalization = [], []
            for point in points:
                try:
                    cv_loss, gen_loss = problem.evaluate(point)
                except Exception:  # Bayesmark scores a failed evaluation as inf.
                    traceback.print_exc(limit=4, file=sys.stderr)
                    cv_loss, gen_loss = math.inf, math.inf
                values.append(_number(cv_loss))
                generalization.append(_number(gen_loss))
            reply({"values": values, "generalization": generalization}, request)
        elif kind == "exit":
            return
        else:
            reply({"error": "unknown request type %r" % (kind,)}, request)


def _seed(text):
    return None if text.lower() == "none" else int(text)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--list", action="store_true", help="print the problem names")
    group.add_argument("--describe", metavar="NAME", help="print the describe reply of NAME")
    group.add_argument("--describe-all", action="store_true",
                       help="print every problem's describe reply as a JSON list (no data loaded)")
    group.add_argument("--problem", metavar="NAME", help="serve NAME on stdin/stdout")
    parser.add_argument("--random-state", type=_seed, default=0,
                        help="random_state of every estimator that has one; 'none' leaves it "
                             "unset as Bayesmark does (a noisy objective). Default 0.")
    parser.add_argument("--shuffle-seed", type=int, default=0,
                        help="seed of the train/test split (Bayesmark's shuffle_seed). Default 0.")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(problem_names()))
        return 0
    if args.describe_all:
        print(json.dumps([describe(n, args.random_state) for n in problem_names()]))
        return 0
    name = args.describe or args.problem
    try:
        problem = SklearnProblem(name, args.random_state, args.shuffle_seed)
    except KeyError as e:
        print("sklearn_pack: %s" % e.args[0], file=sys.stderr)
        return 2
    if args.describe:
        print(json.dumps(problem.describe(), indent=1))
        return 0
    # Only protocol replies may reach stdout: anything a library prints goes to stderr.
    channel = sys.stdout
    sys.stdout = sys.stderr
    serve(problem, sys.stdin, channel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
