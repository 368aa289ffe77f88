import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, PersistentVolumeClaim, Service } from 'kubernetes-models/v1';
import { PrometheusRule, ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { findTool, MAIN } from '../helpers/process.js';
import { loadRules } from '../helpers/promql.js';

/**
 * deploy/kubernetes/ validated offline: rendered by `kubectl kustomize` (Debian's
 * kubernetes-client in CI), every object checked against its schema (kubernetes-models,
 * @kubernetes-models/prometheus-operator), and the settings the issue asks for checked by
 * name: non-root, read-only root filesystem, probes on /healthz and /readyz, the API key
 * from a Secret, the snapshot on the PVC, the config that tonwatch itself accepts.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** What `kubectl apply -k deploy/kubernetes` applies: the base, kept in base/ so that overlays can sit beside it. */
const TOP = join(ROOT, 'deploy/kubernetes');
const BASE = join(TOP, 'base');
const CLUSTER = join(TOP, 'cluster');

type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> } } & Record<string, unknown>;

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  Deployment: Deployment,
  Service: Service,
  ConfigMap: ConfigMap,
  PersistentVolumeClaim: PersistentVolumeClaim,
  ServiceMonitor: ServiceMonitor,
  PrometheusRule: PrometheusRule,
  PodDisruptionBudget: PodDisruptionBudget,
};

/** A kustomization as kustomize renders it (default: deploy/kubernetes); null when kubectl is missing outside CI. */
function rendered(dir = TOP): K8sObject[] | null {
  const kubectl = findTool('kubectl');
  if (kubectl === null) return null;
  const result = spawnSync(kubectl, ['kustomize', dir], { encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  return parseAllDocuments(result.stdout).map((doc) => doc.toJS() as K8sObject);
}

/** The resources listed in kustomization.yaml, read as they are (schema checks need no kubectl). */
function listedResources(): K8sObject[] {
  const kustomization = parseYaml(readFileSync(join(BASE, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
  return kustomization.resources.flatMap((file) => parseAllDocuments(readFileSync(join(BASE, file), 'utf8')).map((doc) => doc.toJS() as K8sObject));
}

function validate(object: K8sObject): void {
  const Model = MODELS[object.kind];
  if (Model === undefined) throw new Error(`no schema for kind ${object.kind}`);
  new Model(object as never).validate();
}

describe('Kubernetes base (deploy/kubernetes)', () => {
  it('every listed object validates against its schema', () => {
    const objects = listedResources();
    expect(objects.map((o) => o.kind).sort()).toEqual(['Deployment', 'PersistentVolumeClaim', 'PrometheusRule', 'Service', 'ServiceMonitor']);
    for (const object of objects) validate(object);
  });

  it('renders with kubectl kustomize, and every rendered object validates, the ConfigMap included', (ctx) => {
    const objects = rendered();
    if (objects === null) return ctx.skip("kubectl not installed (CI installs Debian's kubernetes-client package)");
    expect(objects.map((o) => o.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'PersistentVolumeClaim', 'PrometheusRule', 'Service', 'ServiceMonitor']);
    for (const object of objects) validate(object);
    const configMap = objects.find((o) => o.kind === 'ConfigMap') as K8sObject & { data: Record<string, string> };
    const deployment = objects.find((o) => o.kind === 'Deployment') as unknown as DeploymentShape;
    // The generated ConfigMap's hashed name is the one the Deployment mounts, and the image is set.
    expect(deployment.spec.template.spec.volumes.find((v) => v.name === 'config')?.configMap?.name).toBe(configMap.metadata.name);
    expect(deployment.spec.template.spec.containers[0]?.image).toBe('tonwatch:0.1.0');
    expect(Object.keys(configMap.data).sort()).toEqual(['tonwatch.yml', 'watchlist.txt']);
  });

  it('runs non-root on a read-only root filesystem, probes /healthz and /readyz, takes the key from a Secret and keeps the snapshot on the PVC', () => {
    const deployment = listedResources().find((o) => o.kind === 'Deployment') as unknown as DeploymentShape;
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    expect(container?.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(container?.securityContext.allowPrivilegeEscalation).toBe(false);
    expect(container?.livenessProbe.httpGet.path).toBe('/healthz');
    expect(container?.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container?.env.find((e) => e.name === 'TONCENTER_API_KEY')?.valueFrom?.secretKeyRef?.name).toBe('tonwatch-upstream');
    const config = readFileSync(join(BASE, 'tonwatch.yml'), 'utf8');
    const snapshotDir = /file: (\/\S+)\/snapshot\.json/.exec(config)?.[1];
    expect(container?.volumeMounts.find((m) => m.name === 'data')?.mountPath).toBe(snapshotDir);
    expect(pod.volumes.find((v) => v.name === 'data')?.persistentVolumeClaim?.claimName).toBe('tonwatch-data');
    // The port is the one the config listens on, and the Service and ServiceMonitor use it by name.
    expect(container?.ports[0]?.containerPort).toBe(Number(/port: (\d+)/.exec(config)?.[1]));
  });

  it('ships a config tonwatch check-config accepts, with the key from the environment', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tonwatch-k8s-'));
    writeFileSync(join(dir, 'tonwatch.yml'), readFileSync(join(BASE, 'tonwatch.yml'), 'utf8'));
    writeFileSync(join(dir, 'watchlist.txt'), readFileSync(join(BASE, 'watchlist.txt'), 'utf8'));
    const result = spawnSync(process.execPath, [MAIN, 'check-config', '--config', join(dir, 'tonwatch.yml')], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '', TONCENTER_API_KEY: 'k8s-secret-value' },
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('apiKey: <redacted>');
    expect(result.stdout).not.toContain('k8s-secret-value');
  });

  it('has a PrometheusRule with exactly the groups of dashboards/prometheus/rules.yml, scraped under the job the rules select', () => {
    const objects = listedResources();
    const rule = objects.find((o) => o.kind === 'PrometheusRule') as K8sObject & { spec: unknown };
    expect(rule.spec).toEqual(loadRules());
    const monitor = objects.find((o) => o.kind === 'ServiceMonitor') as K8sObject & { spec: { endpoints: { port: string }[] } };
    const service = objects.find((o) => o.kind === 'Service') as K8sObject & { spec: { ports: { name: string }[] } };
    // The Prometheus Operator names the job after the Service: the rules' default selector.
    expect(service.metadata.name).toBe('tonwatch');
    expect(monitor.spec.endpoints[0]?.port).toBe(service.spec.ports[0]?.name);
  });
});

describe('Kubernetes cluster overlay (deploy/kubernetes/cluster)', () => {
  it('renders three replicas on the base, the Redis URL from a Secret, a PodDisruptionBudget and no ReadWriteOnce volume, every object valid', (ctx) => {
    const objects = rendered(CLUSTER);
    if (objects === null) return ctx.skip("kubectl not installed (CI installs Debian's kubernetes-client package)");
    expect(objects.map((o) => o.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'PodDisruptionBudget', 'PrometheusRule', 'Service', 'ServiceMonitor']);
    for (const object of objects) validate(object);
    const deployment = objects.find((o) => o.kind === 'Deployment') as unknown as DeploymentShape & {
      spec: { replicas: number; strategy: { type: string }; template: { metadata: { labels: Record<string, string> } } };
    };
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.spec.strategy.type).toBe('RollingUpdate');
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    expect(container?.env.find((e) => e.name === 'REDIS_URL')?.valueFrom?.secretKeyRef?.name).toBe('tonwatch-redis');
    expect(container?.env.find((e) => e.name === 'TONCENTER_API_KEY')?.valueFrom?.secretKeyRef?.name).toBe('tonwatch-upstream');
    expect(pod.volumes.find((v) => v.name === 'data')?.persistentVolumeClaim).toBeUndefined();
    // Still the base's hardening and probes.
    expect(container?.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(container?.readinessProbe.httpGet.path).toBe('/readyz');
    const pdb = objects.find((o) => o.kind === 'PodDisruptionBudget') as K8sObject & {
      spec: { maxUnavailable: number; selector: { matchLabels: Record<string, string> } };
    };
    expect(pdb.spec.maxUnavailable).toBe(1);
    for (const [key, value] of Object.entries(pdb.spec.selector.matchLabels)) expect(deployment.spec.template.metadata.labels[key]).toBe(value);
    // The ConfigMap holds the cluster config and the base's watchlist, under the name the pods mount.
    const configMap = objects.find((o) => o.kind === 'ConfigMap') as K8sObject & { data: Record<string, string> };
    expect(pod.volumes.find((v) => v.name === 'config')?.configMap?.name).toBe(configMap.metadata.name);
    expect(configMap.data['tonwatch.yml']).toContain('cluster:');
    expect(configMap.data['watchlist.txt']).toBe(readFileSync(join(BASE, 'watchlist.txt'), 'utf8'));
  });

  it('ships a cluster config tonwatch check-config accepts, the Redis password redacted', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tonwatch-k8s-cluster-'));
    writeFileSync(join(dir, 'tonwatch.yml'), readFileSync(join(CLUSTER, 'tonwatch.yml'), 'utf8'));
    writeFileSync(join(dir, 'watchlist.txt'), readFileSync(join(BASE, 'watchlist.txt'), 'utf8'));
    const result = spawnSync(process.execPath, [MAIN, 'check-config', '--config', join(dir, 'tonwatch.yml')], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '', REDIS_URL: 'redis://:redis-secret-pw@redis.tonwatch.svc:6379/0', POD_NAME: 'tonwatch-7d9f-abcde' },
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).not.toContain('redis-secret-pw');
    expect(result.stdout).toContain('member: tonwatch-7d9f-abcde');
  });
});

interface DeploymentShape {
  spec: {
    template: {
      spec: {
        securityContext: { runAsNonRoot?: boolean; runAsUser?: number };
        volumes: { name: string; configMap?: { name: string }; persistentVolumeClaim?: { claimName: string } }[];
        containers: {
          image: string;
          ports: { containerPort: number }[];
          env: { name: string; valueFrom?: { secretKeyRef?: { name: string } } }[];
          securityContext: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
          livenessProbe: { httpGet: { path: string } };
          readinessProbe: { httpGet: { path: string } };
          volumeMounts: { name: string; mountPath: string }[];
        }[];
      };
    };
  };
}
