// The workspace-wide collections, which every unit extends by its share: the business context (processes,
// products and services with their impact analyses, processing activities), assets, threats, insights and
// organizational alerts.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import type { AssetSource, ReviewStatus } from '../resources/assets/schema.js';
import type { Criticality } from '../schema/fields.js';
import { buildAlert } from './action-plans.js';
import { cycled, DAY, date, fill, iso } from './format.js';
import type { UnitPlan } from './plan.js';
import { SETUP_ENDPOINT, SETUP_KEYS } from './setup.js';
import { audit, recordId, type Unit } from './unit.js';
import {
  AREAS,
  ASSET_NAMES,
  DATA_CATEGORIES,
  INSIGHT_TITLES,
  OFFERINGS,
  PROCESSES,
  REGIONS,
  RETENTION_PERIODS,
  SENSITIVE_DATA_CATEGORIES,
  THREATS,
} from './vocabulary.js';
import {
  alertWeights,
  assetWeights,
  contextWeights,
  criticalityWeights,
  pickWeighted,
  threatWeights,
} from './weights.js';

type AssetSourceValue = (typeof AssetSource)[number];
type ReviewStatusValue = (typeof ReviewStatus)[number];

const WEEK = 7 * DAY;
// Cloud assets are spread over a few accounts (12-digit AWS account numbers), subscriptions and projects.
const CLOUD_ACCOUNTS = 7;
const FIRST_AWS_ACCOUNT = 100_000_000_000;
const AWS_ACCOUNT_STEP = 111_111_111;
const AZURE_SUBSCRIPTIONS = 3;
const GCP_PROJECTS = 5;

/** The workspace-wide share of unit i: context, assets, threats, insights, org alerts (and the score history
 * and the key/endpoint audit trail once, in unit 0). */
export function buildShared(u: Unit, p: UnitPlan) {
  const { rng, ctx } = u;
  const { range } = p;
  const criticality = (index: number) => pickWeighted(rng, criticalityWeights, index);
  if (p.points) {
    let score = rng.int(45, 65);
    for (let k = p.points - 1; k >= 0; k--) {
      score = Math.max(0, Math.min(100, score + rng.int(-4, 4)));
      u.emit('risk_score_points', 0, null, { at: iso(ctx.now - k * WEEK), score });
    }
  }
  for (let j = range.business_processes[0]; j < range.business_processes[1]; j++) {
    const [index, id] = u.next('business_processes');
    const area = index % AREAS.length;
    const process = PROCESSES[index % PROCESSES.length] as string;
    const created = u.recent();
    u.emit('business_processes', created, u.after(created, 200 * DAY), {
      id,
      name: cycled(PROCESSES, index),
      description: `Steps, owners and systems supporting ${process.toLowerCase()}.`,
      area_id: recordId(ctx, 'areas', area),
      area_name: AREAS[area],
      criticality: criticality(index),
    });
  }
  let b = 0;
  for (let j = range.products_services[0]; j < range.products_services[1]; j++) {
    const [index, id] = u.next('products_services');
    const created = u.recent();
    const name = cycled(OFFERINGS, index);
    u.emit('products_services', created, u.after(created, 200 * DAY), {
      id,
      name,
      type: pickWeighted(rng, contextWeights.productServiceType, index),
      description: `${name} offered to retail and business customers.`,
      criticality: criticality(index),
      annual_revenue: rng.money(100_000, 80_000_000),
    });
    if (!p.bia[b++]) continue;
    const [bIndex, bid] = u.next('bia');
    const resulting = criticality(bIndex);
    // Maximum tolerable period of disruption by criticality; all four are drawn, in this order.
    const mtpdByCriticality: Record<(typeof Criticality)[number], number> = {
      critical: rng.int(2, 4),
      high: rng.int(8, 24),
      medium: rng.int(36, 72),
      low: rng.int(96, 336),
    };
    const mtpd = mtpdByCriticality[resulting];
    const rto = Math.max(1, Math.round(mtpd * rng.time(0.3, 0.8)));
    u.emit('bia', created, u.after(created, 200 * DAY), {
      id: bid,
      product_service_id: id,
      rto_hours: rto,
      rpo_hours: Math.max(0.25, Math.round(rto * rng.time(0.1, 1) * 4) / 4),
      mtpd_hours: mtpd,
      financial_impact_per_day: rng.money(5_000, 5_000_000),
      resulting_criticality: resulting,
    });
  }
  for (let j = range.processing_activities[0]; j < range.processing_activities[1]; j++) {
    const [index, id] = u.next('processing_activities');
    const categories = rng.sample(DATA_CATEGORIES, rng.int(1, 4));
    if (index < DATA_CATEGORIES.length && !categories.includes(DATA_CATEGORIES[index] as string))
      categories.push(DATA_CATEGORIES[index] as string);
    const process = PROCESSES[index % PROCESSES.length] as string;
    const created = u.recent();
    u.emit('processing_activities', created, u.after(created, 200 * DAY), {
      id,
      name: cycled(
        PROCESSES.map((p) => `${p} records`),
        index,
      ),
      purpose: `Personal data processed to run ${process.toLowerCase()}.`,
      legal_basis: pickWeighted(rng, contextWeights.legalBasis, index),
      data_categories: categories,
      is_sensitive_data: categories.some((c) => SENSITIVE_DATA_CATEGORIES.has(c)),
      retention_period: rng.pick(RETENTION_PERIODS),
      owner_name: u.person(),
    });
  }
  const [aFrom, aTo] = range.assets;
  for (let j = aFrom; j < aTo; j++) {
    const [index, id] = u.next('assets');
    const type = pickWeighted(rng, assetWeights.type, index);
    const manual = type === 'facility' || rng.chance(0.3);
    const provider = manual ? null : pickWeighted(rng, assetWeights.cloudProvider, u.tick('#provider'));
    const region = rng.pick(REGIONS[provider ?? 'manual']);
    const base = `${rng.pick(ASSET_NAMES[type])}-${index}`;
    const hex = rng.hex(2);
    const accountNumber = FIRST_AWS_ACCOUNT + (index % CLOUD_ACCOUNTS) * AWS_ACCOUNT_STEP;
    const subscription = recordId(ctx, 'subscriptions', index % AZURE_SUBSCRIPTIONS);
    const externalId = {
      aws: `arn:aws:ec2:${region}:${accountNumber}:instance/i-0${hex.slice(0, 8)}${index.toString(16).padStart(8, '0')}`,
      azure: `/subscriptions/${subscription}/resourceGroups/rg-${region}/providers/Microsoft.Compute/virtualMachines/${base}`,
      gcp: `projects/prod-${index % GCP_PROJECTS}/zones/${region}-b/instances/${base}`,
      oci: `ocid1.instance.oc1.${region}.${hex}${index.toString(36)}`,
      manual: `CMDB-${String(index + 1).padStart(6, '0')}`,
    }[provider ?? 'manual'];
    const created = u.recent();
    u.emit('assets', created, u.after(created, 100 * DAY), {
      id,
      external_id: externalId,
      name: base,
      asset_type: type,
      technical_criticality: criticality(index),
      exposure: pickWeighted(rng, assetWeights.exposure, index),
      region,
      cloud_metadata: provider
        ? {
            account: `prod-${index % CLOUD_ACCOUNTS}`,
            instance_type: rng.pick(['m6i.large', 'n2-standard-4', 'D4s_v5', 'VM.Standard3.Flex']),
            tags: { env: rng.pick(['prod', 'staging']), owner: rng.pick(['platform', 'payments', 'data']) },
          }
        : {},
      source: (manual ? 'manual' : 'cloud') satisfies AssetSourceValue,
      cloud_provider: provider,
      review_status: (manual || rng.chance(0.4) ? 'confirmed' : 'discovered') satisfies ReviewStatusValue,
    });
  }
  for (let j = range.threats[0]; j < range.threats[1]; j++) {
    const [index, id] = u.next('threats');
    const [title, mitre] = rng.pick(THREATS);
    const created = u.recent();
    const cve = rng.chance(0.5) ? `CVE-${rng.int(2019, 2025)}-${rng.int(1000, 49999)}` : null;
    u.emit('threats', created, u.after(created, 100 * DAY), {
      id,
      title,
      description: `${title}${cve ? `, exploiting ${cve}` : ''}. Likelihood depends on the exposure of the asset.`,
      severity: pickWeighted(rng, threatWeights.severity, index),
      status: pickWeighted(rng, threatWeights.status, index),
      source: pickWeighted(rng, threatWeights.source, index),
      cve_id: cve,
      mitre_technique_id: rng.chance(0.8) ? mitre : null,
      asset_id: aTo > 0 && rng.chance(0.7) ? recordId(ctx, 'assets', rng.int(0, aTo - 1)) : null,
    });
  }
  for (let j = range.insights[0]; j < range.insights[1]; j++) {
    const [index, id] = u.next('insights');
    const category = pickWeighted(rng, alertWeights.insightCategory, index);
    const title = fill(INSIGHT_TITLES[category], {
      d: rng.int(-12, 12),
      n: rng.int(2, 40),
      p: rng.int(55, 98),
    });
    const created = u.recent();
    u.emit('insights', created, created, {
      id,
      category,
      severity: pickWeighted(rng, alertWeights.severity, index),
      title,
      body: `${title}. Computed from workspace data as of ${date(created)}; see the underlying records.`,
    });
  }
  for (let j = range.org_alerts[0]; j < range.org_alerts[1]; j++) buildAlert(u, null);
  if (p.assetAudit)
    audit(u, 'assets.upserted', 'api_key', ['asset', recordId(ctx, 'assets', aFrom)], {
      created: aTo - aFrom,
      updated: 0,
    });
  // The set-up trail (SETUP_AUDIT_ENTRIES in plan.ts counts these entries).
  if (p.i === 0) {
    // Metadata as the service writes it: never free text such as the key's name (P72).
    SETUP_KEYS.forEach(({ scopes }, index) => {
      audit(u, 'api_key.created', 'user', ['api_key', recordId(ctx, 'api_keys', index)], {
        scopes: [...scopes],
      });
    });
    SETUP_KEYS.forEach(({ revokedDay }, index) => {
      if (revokedDay !== undefined)
        audit(u, 'api_key.revoked', 'user', ['api_key', recordId(ctx, 'api_keys', index)], {});
    });
    audit(
      u,
      'webhook_endpoint.created',
      'user',
      ['webhook_endpoint', recordId(ctx, 'webhook_endpoints', 0)],
      { events: [...SETUP_ENDPOINT.events] },
    );
  }
}
