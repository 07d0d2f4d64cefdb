#!/usr/bin/env python3
"""Checks of docker-compose.yml and deploy/k8s that yamllint and `docker-compose config` cannot
make: every flag the files pass exists in the built binaries' --helpfull, the network policies
let workers reach only the coordinator (and DNS) and only workers and the ingress source reach
the coordinator, the coordinator keeps its database on its volume, the secrets the pods mount
are defined, and compose workers can be scaled. Run by deploy/lint.sh; BUILD_DIR (default
build/) holds the binaries (the flag checks are skipped when they are not built)."""

import os
import re
import subprocess
import unittest

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD_DIR = os.path.join(ROOT, os.environ.get("BUILD_DIR", "build"))
K8S = os.path.join(ROOT, "deploy", "k8s")
BINARIES = {
    "bbo-server": os.path.join(BUILD_DIR, "server", "bbo-server"),
    "bbo-worker": os.path.join(BUILD_DIR, "worker", "bbo-worker"),
}
PORT = 50051


def load_k8s():
    with open(os.path.join(K8S, "kustomization.yaml")) as f:
        kustomization = yaml.safe_load(f)
    docs = []
    for name in kustomization["resources"]:
        with open(os.path.join(K8S, name)) as f:
            docs += [d for d in yaml.safe_load_all(f) if d]
    return kustomization, docs


def load_compose():
    with open(os.path.join(ROOT, "docker-compose.yml")) as f:
        return yaml.safe_load(f)


def flags_of(argv):
    """The flag names of a command line (['bbo-server', '--a=1', '--b'] -> ['a', 'b'])."""
    return [re.match(r"--([A-Za-z0-9_-]+)", a).group(1) for a in argv[1:] if a.startswith("--")]


def known_flags(binary):
    out = subprocess.run([binary, "--helpfull"], capture_output=True, text=True, timeout=60)
    return set(re.findall(r"^\s+--([A-Za-z0-9_]+) \(", out.stdout + out.stderr, re.M))


def by_kind(docs, kind, name=None):
    found = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    assert found, f"no {kind} {name or ''} in deploy/k8s"
    return found


def matches(selector, labels):
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items())


class K8s(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.kustomization, cls.docs = load_k8s()
        cls.sts = by_kind(cls.docs, "StatefulSet", "bbo-coordinator")[0]
        cls.worker = by_kind(cls.docs, "Deployment", "bbo-worker")[0]
        cls.coord_labels = cls.sts["spec"]["template"]["metadata"]["labels"]
        cls.worker_labels = cls.worker["spec"]["template"]["metadata"]["labels"]
        cls.policies = {p["metadata"]["name"]: p["spec"] for p in by_kind(cls.docs, "NetworkPolicy")}

    def container(self, workload):
        (c,) = workload["spec"]["template"]["spec"]["containers"]
        return c

    def test_everything_in_one_namespace(self):
        (ns,) = by_kind(self.docs, "Namespace")
        self.assertEqual(self.kustomization["namespace"], ns["metadata"]["name"])

    def test_coordinator_is_one_pod_with_its_database_on_the_claim(self):
        self.assertEqual(self.sts["spec"]["replicas"], 1)
        claims = [t["metadata"]["name"] for t in self.sts["spec"]["volumeClaimTemplates"]]
        mounts = {m["mountPath"]: m["name"] for m in self.container(self.sts)["volumeMounts"]}
        self.assertIn(mounts.get("/data"), claims)
        args = self.container(self.sts)["args"]
        db = [a.split("=", 1)[1] for a in args if a.startswith("--db=")]
        self.assertEqual(len(db), 1)
        self.assertTrue(db[0].startswith("/data/"), db)
        self.assertIn("--listen=0.0.0.0:%d" % PORT, args)
        for flag in ("--tls_cert_file", "--tls_key_file", "--tls_client_ca_file"):
            self.assertTrue(any(a.startswith(flag + "=") for a in args), flag)
        self.assertNotIn("--insecure", args)

    def test_service_reaches_the_coordinator_and_workers_dial_it(self):
        services = {s["metadata"]["name"]: s["spec"] for s in by_kind(self.docs, "Service")}
        self.assertIn(self.sts["spec"]["serviceName"], services)
        svc = services["bbo-coordinator"]
        self.assertTrue(matches({"matchLabels": svc["selector"]}, self.coord_labels))
        self.assertEqual([p["port"] for p in svc["ports"]], [PORT])
        self.assertIn("--coordinator=bbo-coordinator:%d" % PORT, self.container(self.worker)["args"])

    def test_worker_is_privileged_and_its_secrets_exist(self):
        self.assertIn("replicas", self.worker["spec"])
        self.assertTrue(self.container(self.worker)["securityContext"]["privileged"])
        secrets = {s["metadata"]["name"]: s for s in by_kind(self.docs, "Secret")}
        for workload in (self.sts, self.worker):
            for v in workload["spec"]["template"]["spec"].get("volumes", []):
                if "secret" in v:
                    self.assertIn(v["secret"]["secretName"], secrets)
        for s in secrets.values():  # templates only: no real key or token in the repository
            for value in s.get("stringData", {}).values():
                self.assertIn("REPLACE-ME", value)
            self.assertNotIn("data", s)

    def test_default_deny(self):
        deny = [p for p in self.policies.values() if p["podSelector"] == {}]
        self.assertEqual(len(deny), 1)
        self.assertEqual(sorted(deny[0]["policyTypes"]), ["Egress", "Ingress"])
        self.assertFalse(deny[0].get("ingress") or deny[0].get("egress"))

    def policy_for(self, labels):
        found = [p for p in self.policies.values() if p["podSelector"] and matches(p["podSelector"], labels)]
        self.assertEqual(len(found), 1)
        return found[0]

    def test_workers_reach_only_the_coordinator_and_dns(self):
        p = self.policy_for(self.worker_labels)
        self.assertEqual(sorted(p["policyTypes"]), ["Egress", "Ingress"])
        self.assertFalse(p.get("ingress"))
        to_coordinator, to_dns = p["egress"]
        (peer,) = to_coordinator["to"]
        self.assertEqual(set(peer), {"podSelector"})
        self.assertTrue(matches(peer["podSelector"], self.coord_labels))
        self.assertFalse(matches(peer["podSelector"], self.worker_labels))
        self.assertEqual(to_coordinator["ports"], [{"protocol": "TCP", "port": PORT}])
        (dns,) = to_dns["to"]
        self.assertEqual(dns["namespaceSelector"]["matchLabels"], {"kubernetes.io/metadata.name": "kube-system"})
        self.assertEqual(dns["podSelector"]["matchLabels"], {"k8s-app": "kube-dns"})
        self.assertEqual(sorted((x["protocol"], x["port"]) for x in to_dns["ports"]), [("TCP", 53), ("UDP", 53)])
        self.assertEqual(len(p["egress"]), 2)

    def test_only_workers_and_the_ingress_source_reach_the_coordinator(self):
        p = self.policy_for(self.coord_labels)
        self.assertIn("Ingress", p["policyTypes"])
        (rule,) = p["ingress"]
        self.assertEqual(rule["ports"], [{"protocol": "TCP", "port": PORT}])
        pods = [peer for peer in rule["from"] if "podSelector" in peer and "namespaceSelector" not in peer]
        self.assertEqual(len(pods), 1)
        self.assertTrue(matches(pods[0]["podSelector"], self.worker_labels))
        others = [peer for peer in rule["from"] if peer not in pods]
        for peer in others:  # the ingress source: a labelled namespace or an address range
            self.assertTrue(peer.get("namespaceSelector", {}).get("matchLabels") or "ipBlock" in peer, peer)
            self.assertNotEqual(peer.get("ipBlock", {}).get("cidr"), "0.0.0.0/0")

    @unittest.skipUnless(all(os.access(b, os.X_OK) for b in BINARIES.values()), "binaries not built")
    def test_every_flag_exists(self):
        for workload, binary in ((self.sts, "bbo-server"), (self.worker, "bbo-worker")):
            args = self.container(workload)["args"]
            self.assertEqual(args[0], binary)
            unknown = set(flags_of(args)) - known_flags(BINARIES[binary])
            self.assertFalse(unknown, f"{binary} has no flag {unknown}")


class Compose(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.compose = load_compose()
        cls.server = cls.compose["services"]["server"]
        cls.worker = cls.compose["services"]["worker"]

    def test_workers_scale(self):
        # --scale worker=N needs no fixed name and no published port on the workers.
        self.assertNotIn("container_name", self.worker)
        self.assertNotIn("ports", self.worker)
        self.assertTrue(self.worker.get("privileged"))

    def test_server_tls_and_volume(self):
        cmd = self.server["command"]
        for flag in ("--tls_cert_file", "--tls_key_file", "--tls_client_ca_file"):
            self.assertTrue(any(a.startswith(flag + "=/run/secrets/") for a in cmd), flag)
        self.assertNotIn("--insecure", cmd)
        self.assertTrue(any(v.endswith(":/data") for v in self.server["volumes"]))
        self.assertTrue(any(a.startswith("--db=/data/") for a in cmd))

    def test_secrets_defined_and_used(self):
        defined = set(self.compose["secrets"])
        for svc in (self.server, self.worker):
            self.assertLessEqual(set(svc["secrets"]), defined)
            for arg in svc["command"]:
                m = re.search(r"=/run/secrets/(\w+)$", arg)
                if m:
                    self.assertIn(m.group(1), svc["secrets"], arg)

    @unittest.skipUnless(all(os.access(b, os.X_OK) for b in BINARIES.values()), "binaries not built")
    def test_every_flag_exists(self):
        for svc, binary in ((self.server, "bbo-server"), (self.worker, "bbo-worker")):
            self.assertEqual(svc["command"][0], binary)
            unknown = set(flags_of(svc["command"])) - known_flags(BINARIES[binary])
            self.assertFalse(unknown, f"{binary} has no flag {unknown}")


if __name__ == "__main__":
    unittest.main(verbosity=1)
