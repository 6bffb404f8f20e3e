// The deployment artifacts of deploy/ (issue 25 "Ship it", points 3-5; decisions P134, P135): the Kubernetes
// manifests validated against the Kubernetes schemas (kubernetes-models) and held to what the operations
// guide requires of them; the compose fleet's services, start order and secrets; the systemd unit's
// hardening, checked by `systemd-analyze verify` where it exists. Building and running the image and the
// compose fleet is CI's deploy check (scripts/deploy-check.sh), not a unit test.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { ConfigError, loadConfig, settingVariables } from '../../src/config.js';

const DEPLOY = fileURLToPath(new URL('../../../deploy/', import.meta.url));
const read = (path: string) => readFileSync(join(DEPLOY, path), 'utf8');

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML documents
type Doc = any;

/** The model class of each kind the manifests use (kubernetes-models validates against the API's schemas). */
async function validator(apiVersion: string, kind: string): Promise<new (data: Doc) => { validate(): void }> {
  // Modules by API version: kubernetes-models/v1/Service, kubernetes-models/apps/v1/Deployment, …
  const module = await import(`kubernetes-models/${apiVersion}/${kind}`);
  return module[kind];
}

describe('Kubernetes manifests (deploy/kubernetes)', () => {
  const dir = join(DEPLOY, 'kubernetes');
  const kustomization = parse(read('kubernetes/kustomization.yaml')) as Doc;
  const docs: Doc[] = (kustomization.resources as string[]).flatMap((file) =>
    parseAllDocuments(read(`kubernetes/${file}`)).map((doc) => doc.toJS()),
  );
  const find = (kind: string, name: string) => {
    const found = docs.find((doc) => doc.kind === kind && doc.metadata.name === name);
    assert.ok(found, `${kind} ${name}`);
    return found;
  };

  test('the kustomization lists every manifest of the directory (the Secret is an example, not a resource)', () => {
    const manifests = readdirSync(dir).filter(
      (file) => file.endsWith('.yaml') && file !== 'kustomization.yaml' && !file.includes('.example.'),
    );
    assert.deepEqual([...kustomization.resources].sort(), manifests.sort());
  });

  test('every document validates against the Kubernetes schema of its kind', async () => {
    const all = [
      ...docs,
      ...parseAllDocuments(read('kubernetes/secret.example.yaml')).map((doc) => doc.toJS()),
    ];
    assert.ok(all.length >= 10, `${all.length} documents`);
    for (const doc of all) {
      const Model = await validator(doc.apiVersion, doc.kind);
      assert.doesNotThrow(() => new Model(doc).validate(), `${doc.kind} ${doc.metadata?.name}`);
    }
    // The validation is real: a wrong type is refused.
    const broken = structuredClone(find('Deployment', 'tprm-api'));
    broken.spec.replicas = 'two';
    const Deployment = await validator('apps/v1', 'Deployment');
    assert.throws(() => new Deployment(broken).validate(), /replicas/);
  });

  test('the API: 2 replicas, probes on the admin port, resources, a locked-down container, secrets by reference', () => {
    const api = find('Deployment', 'tprm-api');
    assert.equal(api.spec.replicas, 2);
    const pod = api.spec.template.spec;
    const [container] = pod.containers;
    assert.deepEqual(container.args, ['serve', '--role', 'api']);
    const admin = container.ports.find((port: Doc) => port.name === 'admin');
    assert.equal(admin.containerPort, 8081);
    assert.deepEqual(container.readinessProbe.httpGet, { path: '/readyz', port: 'admin' });
    assert.deepEqual(container.livenessProbe.httpGet, { path: '/healthz', port: 'admin' });
    assert.ok(container.resources.requests.cpu && container.resources.limits.memory);
    assertLockedDown(pod, container);
    for (const name of ['ADMIN_TOKEN', 'DATABASE_URL', 'REDIS_URL'])
      assert.deepEqual(
        container.env.find((variable: Doc) => variable.name === name)?.valueFrom,
        { secretKeyRef: { name: 'tprm-api', key: name } },
        name,
      );
  });

  test('the worker Deployment and the migrate Job run the same image, locked down, with the secrets they need', () => {
    const worker = find('Deployment', 'tprm-api-worker');
    const job = find('Job', 'tprm-api-migrate');
    assert.deepEqual(worker.spec.template.spec.containers[0].args, ['serve', '--role', 'worker']);
    assert.deepEqual(job.spec.template.spec.containers[0].args, ['migrate']);
    for (const pod of [worker.spec.template.spec, job.spec.template.spec]) {
      const [container] = pod.containers;
      assert.equal(container.image, 'tprm-api');
      assertLockedDown(pod, container);
      assert.ok(
        container.env.some((variable: Doc) => variable.name === 'DATABASE_URL' && variable.valueFrom),
      );
    }
  });

  test('Services, a PodDisruptionBudget and a HorizontalPodAutoscaler for the API', () => {
    const api = find('Deployment', 'tprm-api');
    const labels = api.spec.template.metadata.labels;
    for (const name of ['tprm-api', 'tprm-api-admin']) {
      const service = find('Service', name);
      for (const [key, value] of Object.entries(service.spec.selector)) assert.equal(labels[key], value);
    }
    assert.deepEqual(
      find('PodDisruptionBudget', 'tprm-api').spec.selector.matchLabels,
      api.spec.selector.matchLabels,
    );
    const hpa = find('HorizontalPodAutoscaler', 'tprm-api');
    assert.deepEqual(hpa.spec.scaleTargetRef, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'tprm-api',
    });
    assert.ok(hpa.spec.minReplicas >= 2);
  });

  test('the ConfigMap holds settings the service reads, and no secret', () => {
    const keys = Object.keys(find('ConfigMap', 'tprm-api').data);
    const settings = settingVariables();
    for (const key of keys) assert.ok(settings.includes(key), `${key} is a setting`);
    for (const secret of ['ADMIN_TOKEN', 'DATABASE_URL', 'REDIS_URL'])
      assert.ok(!keys.includes(secret), secret);
  });
});

function assertLockedDown(pod: Doc, container: Doc): void {
  assert.equal(pod.securityContext.runAsNonRoot, true);
  assert.ok(pod.securityContext.runAsUser > 0);
  assert.equal(pod.automountServiceAccountToken, false);
  assert.equal(container.securityContext.readOnlyRootFilesystem, true);
  assert.equal(container.securityContext.allowPrivilegeEscalation, false);
  assert.deepEqual(container.securityContext.capabilities.drop, ['ALL']);
  // Writable places are volumes: the read-only root filesystem holds none.
  const mounts = container.volumeMounts.map((mount: Doc) => mount.mountPath).sort();
  assert.deepEqual(mounts, ['/data', '/tmp']);
}

describe('compose fleet (deploy/compose)', () => {
  const compose = parse(read('compose/compose.yaml'), { merge: true }) as Doc;
  const services = compose.services;

  test('PostgreSQL, Redis, a one-shot migration, two API replicas and a worker, started in order of health', () => {
    assert.deepEqual(Object.keys(services).sort(), [
      'api-1',
      'api-2',
      'migrate',
      'postgres',
      'redis',
      'worker',
    ]);
    assert.deepEqual(services.migrate.command, ['migrate']);
    assert.equal(services.migrate.restart, 'no');
    assert.deepEqual(services.migrate.depends_on, { postgres: { condition: 'service_healthy' } });
    for (const name of ['api-1', 'api-2', 'worker']) {
      assert.deepEqual(services[name].depends_on, {
        migrate: { condition: 'service_completed_successfully' },
        redis: { condition: 'service_healthy' },
      });
      assert.deepEqual(services[name].command.slice(0, 2), ['serve', '--role']);
    }
    assert.ok(services.postgres.healthcheck && services.redis.healthcheck);
    for (const name of ['migrate', 'api-1', 'api-2', 'worker']) {
      assert.equal(services[name].read_only, true, name);
      assert.deepEqual(services[name].cap_drop, ['ALL'], name);
    }
    // Ports are published on loopback only.
    for (const service of Object.values(services) as Doc[])
      for (const port of service.ports ?? []) assert.match(port, /^127\.0\.0\.1:/);
  });

  test('secrets come from the env file and must be set; the example holds no usable secret', () => {
    const env = services['api-1'].environment;
    assert.match(env.ADMIN_TOKEN, /^\$\{ADMIN_TOKEN:\?/);
    assert.match(env.DATABASE_URL, /\$\{POSTGRES_PASSWORD:\?/);
    assert.match(env.REDIS_URL, /\$\{REDIS_PASSWORD:\?/);
    const example = Object.fromEntries(
      read('compose/example.env')
        .split('\n')
        .filter((line) => /^[A-Z_]+=/.test(line))
        .map((line) => line.split('=', 2) as [string, string]),
    );
    for (const name of ['ADMIN_TOKEN', 'POSTGRES_PASSWORD', 'REDIS_PASSWORD'])
      assert.equal(example[name], 'replace-me');
    // The service refuses to start with the example's admin token.
    assert.throws(() => loadConfig({ ADMIN_TOKEN: example.ADMIN_TOKEN }), ConfigError);
  });
});

describe('systemd unit (deploy/systemd)', () => {
  const unit = read('systemd/tprm-api.service');
  const directives = new Map<string, string[]>();
  for (const line of unit.split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (match)
      directives.set(match[1] as string, [...(directives.get(match[1] as string) ?? []), match[2] as string]);
  }
  const value = (name: string) => directives.get(name)?.join(' ');

  test('runs tprm serve as a dynamic user with the usual hardening', () => {
    assert.match(value('ExecStart') ?? '', /node --max-semi-space-size=8 \S+\/bin\/tprm\.js serve/);
    assert.equal(value('DynamicUser'), 'yes');
    assert.equal(value('StateDirectory'), 'tprm-api');
    assert.match(value('Environment') ?? '', /DATA_DIR=\/var\/lib\/tprm-api/);
    for (const [name, expected] of Object.entries({
      NoNewPrivileges: 'yes',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      PrivateDevices: 'yes',
      CapabilityBoundingSet: '',
      KillSignal: 'SIGTERM',
    }))
      assert.equal(value(name), expected, name);
  });

  const analyze = spawnSync('systemd-analyze', ['--version']).status === 0;
  test('systemd-analyze verify accepts it', {
    skip: analyze ? false : 'systemd-analyze is not installed',
  }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'tprm-unit-'));
    try {
      copyFileSync(join(DEPLOY, 'systemd/tprm-api.service'), join(dir, 'tprm-api.service'));
      const result = spawnSync('systemd-analyze', ['verify', join(dir, 'tprm-api.service')], {
        encoding: 'utf8',
      });
      assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
      assert.equal(result.stderr.trim(), '');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
