// Deterministic demo data for one workspace, as Import documents (management-api.md, "Import document").
//
// The data set is a stream of "units", one per supplier: the supplier and everything hanging off it
// (assessments, gaps, reports, action plans, alerts, risks, audit entries) plus a share of the
// workspace-wide collections (assets, threats, context, insights, org alerts). Records are emitted in
// dependency order and cut into batches of at most `batchSize` records, so every reference points into the
// same or an earlier batch and each batch can be imported as its own transaction.
//
// Determinism: each unit draws from its own PRNG (sfc32) seeded from (seed, unit index), and every id is a
// uuid v4 hashed from (seed, collection, index in the collection). Because that hash is a bijection of the
// index, ids are unique within a collection by construction, and any earlier record's id can be recomputed
// without keeping it in memory. A unit's shape (how many children of each kind) comes from a separate
// "plan" stream, so `countSeedRecords` walks the plans only.

/** Everything scales from the number of suppliers: ~1.5 assessments and ~0.5 risks per supplier, ~5-20 gaps
 * per completed assessment, 2 assets per supplier (at most 100,000), threats, context and insights capped. */
export interface SeedSize {
  suppliers: number;
}
export interface SeedOptions {
  size: SeedSize;
  /** 32-bit integer; default 1. */
  seed?: number;
  /** Maximum records per yielded document; default 2000. */
  batchSize?: number;
  /** The instant the data is "as of"; default the start of the current UTC day. */
  now?: Date;
}
export type ImportDocument = Record<string, Record<string, unknown>[]>;
type Rec = Record<string, unknown>;

const DAY = 86_400_000;
const HOUR = 3_600_000;

// ---------------------------------------------------------------- hashing and PRNG

const mix = (h: number, k: number): number => {
  let x = Math.imul(k, 0xcc9e2d51);
  x = Math.imul((x << 15) | (x >>> 17), 0x1b873593);
  const y = h ^ x;
  return (Math.imul((y << 13) | (y >>> 19), 5) + 0xe6546b64) | 0;
};
const fmix = (h: number): number => {
  let x = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
};
const HEX = Array.from({ length: 256 }, (_, k) => k.toString(16).padStart(2, '0'));
const hex8 = (n: number): string =>
  (HEX[n >>> 24] as string) + HEX[(n >>> 16) & 255] + HEX[(n >>> 8) & 255] + HEX[n & 255];

class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  constructor(seed: number, salt: number, index: number) {
    this.a = fmix(mix(seed, salt));
    this.b = fmix(mix(mix(seed, index), salt));
    this.c = fmix(mix(index, 0x9e3779b9));
    this.d = 1;
    for (let k = 0; k < 12; k++) this.u32();
  }
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (((this.c << 21) | (this.c >>> 11)) + t) | 0;
    return t >>> 0;
  }
  next(): number {
    return this.u32() / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(arr: readonly T[]): T {
    return arr[Math.floor(this.next() * arr.length)] as T;
  }
  /** k distinct elements, in random order. */
  sample<T>(arr: readonly T[], k: number): T[] {
    const copy = arr.slice();
    for (let j = 0; j < k; j++) {
      const r = j + Math.floor(this.next() * (copy.length - j));
      [copy[j], copy[r]] = [copy[r] as T, copy[j] as T];
    }
    return copy.slice(0, k);
  }
  time(from: number, to: number): number {
    return to <= from ? from : from + (to - from) * this.next();
  }
  money(lo: number, hi: number): number {
    return Math.round(lo * (hi / lo) ** this.next()); // log-uniform
  }
  hex(words: number): string {
    let s = '';
    for (let k = 0; k < words; k++) s += hex8(this.u32());
    return s;
  }
}

// ---------------------------------------------------------------- word lists and enumerations

interface Weighted {
  values: string[];
  cum: number[];
}
/** 'a:3 b:1' -> weighted choice; `cover` >= 0 returns values[cover] while in range, so the first records of
 * a collection show every value. */
const w = (spec: string): Weighted => {
  const values: string[] = [];
  const cum: number[] = [];
  let total = 0;
  for (const part of spec.split(' ')) {
    const [v, n] = part.split(':');
    values.push(v as string);
    total += Number(n ?? 1);
    cum.push(total);
  }
  return { values, cum };
};
const pick = (rng: Rng, wt: Weighted, cover = -1): string => {
  if (cover >= 0 && cover < wt.values.length) return wt.values[cover] as string;
  const r = rng.next() * (wt.cum[wt.cum.length - 1] as number);
  const k = wt.cum.findIndex((c) => r < c);
  return wt.values[k < 0 ? wt.values.length - 1 : k] as string;
};
const list = (s: string): string[] => s.split('|');
/** The k-th name of a cycled list: 'Payroll', ..., then 'Payroll 2'. */
const cycled = (arr: readonly string[], k: number): string =>
  k < arr.length ? (arr[k] as string) : `${arr[k % arr.length]} ${Math.floor(k / arr.length) + 1}`;

const E = {
  supplierStatus: w('active:70 inactive:12 pending:18'),
  criticality: w('low:30 medium:40 high:22 critical:8'),
  size: w('small:30 medium:35 large:25 enterprise:10'),
  source: w('import:85 manual:15'),
  aStatus: w('draft:8 sent:12 in_progress:15 paused:5 completed:45 expired:15'),
  aType: w('supplier:70 self:30'),
  decision: w('approved:55 approved_with_caveats:30 rejected:15'),
  decisionPoor: w('approved:15 approved_with_caveats:45 rejected:40'),
  gapStatus: w('not_met:45 partially_met:55'),
  gapSeverity: w('low:30 medium:45 high:25'),
  evidence: w('missing:30 submitted:25 accepted:30 rejected:15'),
  assetType: w('application:30 infrastructure:30 data:15 device:10 facility:4 third_party:8 other:3'),
  exposure: w('internal:70 exposed:30'),
  provider: w('aws:45 azure:25 gcp:20 oci:10'),
  psType: w('service:60 product:40'),
  legalBasis: w(
    'contract:35 legitimate_interests:25 consent:15 legal_obligation:15 vital_interests:3 public_task:7',
  ),
  threatSeverity: w('none:3 low:20 medium:35 high:30 critical:12'),
  threatStatus: w('open:55 mitigated:30 accepted:15'),
  threatSource: w('manual:30 external_feed:50 derived:20'),
  riskType: w('organizational:55 operational:45'),
  riskStatus: w('open:45 treated:30 accepted:12 closed:13'),
  category: w('technological:40 legal:20 brand:15 human:20 biological:5'),
  vendorDomain: w('vendor:70 cyber:15 privacy:15'),
  orgDomain: w('cyber:40 privacy:25 human:35'),
  strategy: w('mitigate:65 transfer:15 avoid:10 accept:10'),
  treatmentStatus: w('planned:35 in_progress:40 done:25'),
  acceptanceStatus: w('active:70 expired:20 revoked:10'),
  planStatus: w('open:40 in_progress:40 closed:20'),
  alertSeverity: w('critical:10 high:25 medium:40 low:25'),
  insightCategory: w(
    'risk_trend:25 supplier_concentration:15 compliance_gap:25 scanner_health:10 assessment_velocity:15 other:10',
  ),
  country: w(
    'US:30 GB:10 DE:10 FR:8 NL:5 IE:4 CA:4 IN:5 SE:3 ES:3 IT:3 CH:3 AU:3 JP:3 SG:2 BR:2 PL:2 DK:1 GR:1',
  ),
  aiUsage: w('none:55 inference_only:25 training:5 unknown:15'),
};
const ITEM_STATUS: Record<string, Weighted> = {
  open: w('pending:70 overdue:30'),
  in_progress: w('pending:25 in_progress:35 completed:20 overdue:12 not_applicable:4 rejected:4'),
  closed: w('completed:80 not_applicable:12 rejected:8'),
};
const COUNTRY: Record<string, [tld: string, legal: string]> = {
  US: ['.com', 'Inc.'],
  GB: ['.co.uk', 'Ltd'],
  DE: ['.de', 'GmbH'],
  FR: ['.fr', 'SAS'],
  NL: ['.nl', 'B.V.'],
  IE: ['.ie', 'Ltd'],
  CA: ['.ca', 'Inc.'],
  IN: ['.in', 'Pvt Ltd'],
  SE: ['.se', 'AB'],
  ES: ['.es', 'S.L.'],
  IT: ['.it', 'S.r.l.'],
  CH: ['.ch', 'AG'],
  AU: ['.com.au', 'Pty Ltd'],
  JP: ['.jp', 'K.K.'],
  SG: ['.sg', 'Pte Ltd'],
  BR: ['.com.br', 'Ltda'],
  PL: ['.pl', 'Sp. z o.o.'],
  DK: ['.dk', 'ApS'],
  GR: ['.gr', 'S.A.'],
};
const PREFIX = list(
  'Apex|Atlas|Beacon|Boreal|Brightwater|Catalyst|Cedar|Cobalt|Crescent|Delta|Evergreen|Falcon|Granite|Halcyon|' +
    'Harbor|Helix|Horizon|Ironclad|Juniper|Keystone|Lumen|Meridian|Nimbus|Northwind|Oakridge|Orbit|Pinnacle|' +
    'Quantum|Redwood|Sapphire|Sentinel|Silverline|Summit|Tandem|Trident|Vantage|Vertex|Wavecrest|Zenith|Kestrel',
);
const CORE = list(
  'Data:Technology|Cloud:Cloud Services|Payments:Financial Services|Analytics:Technology|Security:Cybersecurity|' +
    'Systems:Technology|Networks:Telecommunications|Health:Healthcare|Software:Technology|Consulting:Professional Services|' +
    'Labs:Research|Digital:Marketing|Robotics:Manufacturing|Energy:Energy|Capital:Financial Services|Media:Media|' +
    'Telecom:Telecommunications|Hosting:Cloud Services|Compliance:Professional Services|Payroll:HR Services|' +
    'Freight:Logistics|Biotech:Life Sciences|Insights:Market Research|Solutions:IT Services|Logistics:Logistics',
).map((s) => s.split(':') as [string, string]);
const QUALIFIER = list('Europe|Global|Group|International|Partners|Services|Holdings|Americas|Nordic|Asia');
const SPECIAL: [name: string, domain: string, country: string, industry: string][] = [
  ['Müller Logistik GmbH', 'mueller-logistik.de', 'DE', 'Logistics'],
  ['Société Générale de Données SA', 'sgdonnees.fr', 'FR', 'Data Services'],
  ['Ζήτα Analytics S.A.', 'zeta-analytics.gr', 'GR', 'Technology'],
  ['Øresund Datacenter ApS', 'oresund-dc.dk', 'DK', 'Cloud Services'],
  ['Łódź Systemy Sp. z o.o.', 'lodz-systemy.pl', 'PL', 'IT Services'],
  ['東京クラウド株式会社', 'tokyo-cloud.jp', 'JP', 'Cloud Services'],
];
const TAGS = list(
  'cloud|payments|critical-path|eu-data|soc2|iso27001|pci-dss|hipaa|ai-vendor|subprocessor|offshore|strategic',
);
const FIRST = list(
  'Alice|Bruno|Chloé|David|Elena|Farid|Grace|Hiroshi|Ingrid|José|Kofi|Lena|Marta|Nikhil|Olivia|Pablo|Quinn|' +
    'Rafael|Sofia|Tomás|Uma|Victor|Wei|Ximena|Yusuf|Zoë|Søren|Łukasz|François|Aisha',
);
const LAST = list(
  'Andersson|Becker|Chen|Dubois|Evans|Fischer|García|Hansen|Ivanova|Johnson|Kowalski|López|Müller|Nakamura|' +
    "Okafor|Patel|Rossi|Schmidt|Tanaka|Novak|Walsh|Yılmaz|Zhang|O'Brien|Silva|Kim|Moreau|Haddad|Nguyen|Brennan",
);
const CONTROLS = `
ISO-A.5.1~governance~Policies for information security
ISO-A.5.7~cyber~Threat intelligence
ISO-A.5.15~cyber~Access control
ISO-A.5.19~governance~Information security in supplier relationships
ISO-A.5.23~cyber~Information security for use of cloud services
ISO-A.5.24~resilience~Incident management planning and preparation
ISO-A.5.29~resilience~Information security during disruption
ISO-A.5.30~resilience~ICT readiness for business continuity
ISO-A.5.34~privacy~Privacy and protection of PII
ISO-A.6.3~governance~Information security awareness, education and training
ISO-A.8.7~cyber~Protection against malware
ISO-A.8.8~cyber~Management of technical vulnerabilities
ISO-A.8.13~resilience~Information backup
ISO-A.8.15~cyber~Logging
ISO-A.8.24~cyber~Use of cryptography
NIST-ID.AM-1~governance~Physical devices and systems are inventoried
NIST-ID.SC-2~governance~Suppliers and third-party partners are identified and assessed
NIST-PR.AC-1~cyber~Identities and credentials are managed and audited
NIST-PR.AC-7~cyber~Users, devices and other assets are authenticated
NIST-PR.DS-1~privacy~Data-at-rest is protected
NIST-PR.DS-2~privacy~Data-in-transit is protected
NIST-PR.IP-4~resilience~Backups are conducted, maintained and tested
NIST-DE.CM-8~cyber~Vulnerability scans are performed
NIST-RS.CO-2~resilience~Incidents are reported consistently
NIST-RC.RP-1~resilience~Recovery plan is executed after an incident
CIS-1.1~governance~Maintain a detailed enterprise asset inventory
CIS-3.3~privacy~Configure data access control lists
CIS-4.1~cyber~Maintain a secure configuration process
CIS-5.2~cyber~Use unique passwords
CIS-6.5~cyber~Require MFA for administrative access
CIS-8.2~cyber~Collect audit logs
CIS-11.4~resilience~Maintain an isolated instance of recovery data
CIS-14.1~governance~Maintain a security awareness program
GDPR-ART.28~privacy~Processor contracts and sub-processor approval
GDPR-ART.30~privacy~Records of processing activities
GDPR-ART.33~privacy~Breach notification within 72 hours~
`
  .trim()
  .split('\n')
  .map((s) => s.split('~') as [code: string, domain: string, title: string]);
const FINDINGS = list(
  'no documented evidence was provided|the policy exists but has not been reviewed in over two years|' +
    'the control is implemented for production only|ownership is not assigned|testing is not performed regularly|' +
    'exceptions are not tracked|the control relies on a manual process with no audit trail|' +
    'coverage excludes subcontractors|the last test failed and no retest is scheduled',
);
const EVIDENCE_FILES: [string, string][] = [
  ['soc2-type2-report.pdf', 'application/pdf'],
  ['iso27001-certificate.pdf', 'application/pdf'],
  [
    'information-security-policy.docx',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  ],
  ['access-review-q3.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  ['pentest-summary.pdf', 'application/pdf'],
  ['backup-restore-test.png', 'image/png'],
  ['incident-response-plan.pdf', 'application/pdf'],
  ['vulnerability-scan-export.csv', 'text/csv'],
];
const REGIONS: Record<string, string[]> = {
  aws: list('us-east-1|us-west-2|eu-west-1|eu-central-1|ap-southeast-1'),
  azure: list('eastus|westeurope|northeurope|uksouth|japaneast'),
  gcp: list('us-central1|europe-west1|europe-west3|asia-northeast1'),
  oci: list('us-ashburn-1|eu-frankfurt-1|uk-london-1'),
  manual: list('on-prem-frankfurt|on-prem-dallas|hq-london|colo-amsterdam|branch-singapore'),
};
const ASSET_NAMES: Record<string, string[]> = {
  application: list('customer-portal|billing-service|crm|hr-suite|mobile-api|partner-gateway|data-pipeline'),
  infrastructure: list('k8s-cluster|vpn-gateway|edge-lb|bastion-host|db-primary|message-broker'),
  data: list('customer-db|analytics-warehouse|backup-bucket|log-archive|payments-ledger'),
  device: list('laptop-fleet|pos-terminal|badge-reader|firewall-appliance'),
  facility: list('hq-datacenter|warehouse|branch-office'),
  third_party: list('saas-email|payroll-provider|cdn|support-desk'),
  other: list('legacy-fax-gateway|test-harness|shared-drive'),
};
const THREATS: [title: string, mitre: string][] = [
  ['Phishing campaign targeting finance staff', 'T1566'],
  ['Exploitation of public-facing application', 'T1190'],
  ['Use of stolen valid accounts', 'T1078'],
  ['Ransomware encryption of file shares', 'T1486'],
  ['Password spraying against SSO', 'T1110'],
  ['Malicious script execution', 'T1059'],
  ['Abuse of external remote services', 'T1133'],
  ['Supply chain compromise of a software dependency', 'T1195'],
  ['Exfiltration to cloud storage', 'T1567'],
  ['Network denial of service', 'T1498'],
];
const RISK_TITLES: Record<string, string[]> = {
  vendor: list(
    'concentration on a single provider|inadequate incident notification terms|sub-processor outside the EU|' +
      'financial instability|weak access management|no tested business continuity plan',
  ),
  cyber: list(
    'Ransomware on core file servers|Unpatched internet-facing VPN|Credential stuffing on customer portal|' +
      'Cloud storage misconfiguration|Insider data exfiltration',
  ),
  privacy: list(
    'Retention beyond legal limits|Missing records of processing|International transfers without safeguards|' +
      'Excessive access to health data',
  ),
  human: list(
    'Key person dependency in treasury|Insufficient security awareness|High turnover in the SOC|Pandemic absenteeism',
  ),
};
const SOURCE_DOMAINS = list('vendor|cyber|privacy|human');
const CATEGORY_FOR: Record<string, string> = { cyber: 'technological', privacy: 'legal', human: 'human' };
const AREAS = list('Finance|Operations|IT|Human Resources|Sales|Legal|Customer Service');
const PROCESSES = list(
  'Order to cash|Procure to pay|Payroll|Customer onboarding|Incident response|Month-end close|Claims handling|' +
    'Recruitment|Product release|Customer support|Vendor management|Treasury',
);
const OFFERINGS = list(
  'Online banking|Card issuing|Mobile app|Data platform|Managed hosting|Analytics suite|Payment gateway|' +
    'Customer support plan|Insurance policy administration|Loyalty program',
);
const DATA_CATEGORIES = list('contact|identity|financial|health|location|employment|biometric|behavioral');
const SENSITIVE = new Set(['health', 'biometric']);
const RETENTION = list(
  '90 days|12 months|24 months|5 years|7 years|10 years|Until contract end plus 6 years',
);
const ALERTS = list(
  'SOC 2 report expired|Domain found in a credential dump|TLS certificate expires within 7 days|' +
    'Data breach reported in the press|Assessment deadline missed|New critical CVE affects a supplier product|' +
    'Sanctions list match requires review|Sub-processor added without notice',
);
const ORG_ALERTS = list(
  'Risk appetite exceeded for cyber risks|Scanner connector failing for 24 hours|' +
    'Three assessments overdue this month|Critical supplier without a valid assessment|Quarterly access review due',
);
const INSIGHTS: Record<string, string> = {
  risk_trend: 'Overall risk score moved {d} points over the last 30 days',
  supplier_concentration: '{n} critical services depend on a single cloud provider',
  compliance_gap: '{n} suppliers lack evidence for multi-factor authentication',
  scanner_health: 'External scan coverage dropped to {p}% of supplier domains',
  assessment_velocity: 'Median assessment cycle time is {n} days',
  other: '{n} suppliers have no assigned business owner',
};
const JUSTIFICATIONS = list(
  'compensating controls in place|exit planned|cost of mitigation exceeds exposure',
);
const NOTES = list(
  'Supplier confirmed the fix is scheduled.|Evidence uploaded, pending review.|Waiting on supplier response.|' +
    'Discussed in the quarterly business review.|Compensating control accepted by the CISO.',
);

// ---------------------------------------------------------------- small helpers

const FOLD: Record<string, string> = { ł: 'l', ø: 'o', æ: 'ae', ß: 'ss', đ: 'd', ı: 'i' };
const ascii = (s: string): string =>
  s
    .toLowerCase()
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[łøæßđı]/g, (c) => FOLD[c] ?? '')
    .replace(/[^a-z0-9]+/g, '');
// Date formatting is the hot path at millions of records: days are formatted once and cached.
const DAYS = new Map<number, string>();
const TWO = Array.from({ length: 60 }, (_, k) => String(k).padStart(2, '0'));
const dayOf = (d: number): string => {
  let v = DAYS.get(d);
  if (v === undefined) {
    v = new Date(d * DAY).toISOString().slice(0, 10);
    if (DAYS.size < 100_000) DAYS.set(d, v);
  }
  return v;
};
const date = (ms: number): string => dayOf(Math.floor(ms / DAY));
const iso = (ms: number): string => {
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  const r = s - d * 86400;
  const m = Math.floor(r / 60);
  return `${dayOf(d)}T${TWO[Math.floor(m / 60)]}:${TWO[m % 60]}:${TWO[r % 60]}.000Z`;
};
const fill = (s: string, v: Record<string, string | number>): string =>
  s.replace(/\{(\w+)\}/g, (_, k: string) => String(v[k]));

const KIND = list(
  'suppliers|assessments|gaps|reports|assets|business_processes|products_services|processing_activities|' +
    'bia|threats|risks|risk_treatments|risk_acceptances|action_plans|action_plan_items|alerts|insights|' +
    'audit_logs|areas|users|api_keys|webhook_endpoints|subscriptions',
);
const KIND_NO = new Map(KIND.map((k, n) => [k, n + 1]));

interface Ctx {
  seed: number;
  now: number;
  suppliers: number;
  pairOffset: number;
}
/** uuid v4 for the index-th record of a collection; for a fixed (seed, kind) each word is a bijection of
 * `index`, so ids never repeat within a collection. */
const idFor = (ctx: Ctx, kind: string, index: number): string => {
  const base = mix(ctx.seed, KIND_NO.get(kind) ?? 0);
  const word = (j: number) => fmix(mix(mix(base, j), index));
  const a = hex8(word(0));
  const b = hex8((word(1) & 0xffff0fff) | 0x4000);
  const c = hex8((word(2) & 0x3fffffff) | 0x80000000);
  return `${a}-${b.slice(0, 4)}-${b.slice(4)}-${c.slice(0, 4)}-${c.slice(4)}${hex8(word(3))}`;
};

/** Workspace-wide collections: unit i holds indices [f(i), f(i+1)) with f(k) = min(cap, base + k·ratio). */
const SHARES = {
  assets: [0, 2, 100_000],
  threats: [2, 0.5, 25_000],
  business_processes: [4, 0.1, 500],
  products_services: [3, 0.06, 300],
  processing_activities: [4, 0.1, 400],
  insights: [6, 0.1, 2_000],
  org_alerts: [4, 0.05, 2_000],
} as const;
type Share = keyof typeof SHARES;
const shareEnd = (s: Share, k: number): number => {
  const [base, ratio, cap] = SHARES[s];
  return k === 0 ? 0 : Math.min(cap, Math.floor(base + k * ratio));
};

// ---------------------------------------------------------------- plans (the shape of one unit)

interface AssessmentPlan {
  status: string;
  done: boolean; // has completed_at
  gaps: number;
  report: boolean;
  items: number; // action plan items; 0 = no action plan
}
interface RiskPlan {
  status: string;
  supplier: boolean;
  treatments: number;
  acceptance: boolean;
}
interface UnitPlan {
  i: number;
  assessments: AssessmentPlan[];
  summary: boolean;
  alerts: number;
  risks: RiskPlan[];
  range: Record<Share, [number, number]>;
  bia: boolean[];
  points: number;
  audits: number;
  total: number;
}
interface PlanState {
  assessments: number;
  risks: number;
}

/** Treatments per risk status: [min, max]. */
const TREATMENTS: Record<string, [number, number]> = {
  open: [0, 2],
  treated: [1, 3],
  accepted: [0, 0],
  closed: [1, 2],
};
const SALT_PLAN = 0x51a7;
const SALT_BUILD = 0xb11d;
const MIN_SUPPLIER_AGE_DAYS = 60;

function planUnit(ctx: Ctx, st: PlanState, i: number): UnitPlan {
  const rng = new Rng(ctx.seed, SALT_PLAN, i);
  const nA = i < 6 ? rng.int(1, 3) : ([0, 1, 1, 1, 2, 2, 2, 3, 1, 2][rng.int(0, 9)] ?? 1);
  const assessments: AssessmentPlan[] = [];
  for (let k = 0; k < nA; k++) {
    const status = pick(rng, E.aStatus, st.assessments++);
    const done = status === 'completed' || (status === 'expired' && rng.chance(0.6));
    const gaps = !done ? 0 : status === 'completed' ? rng.int(5, 20) : rng.int(3, 12);
    const items = done && (i < 8 || rng.chance(status === 'completed' ? 0.55 : 0.2)) ? rng.int(2, 6) : 0;
    assessments.push({ status, done, gaps, report: done && rng.chance(0.9), items });
  }
  const risks: RiskPlan[] = [];
  const addRisk = (supplier: boolean) => {
    const index = st.risks++;
    const status = pick(rng, E.riskStatus, index);
    const [lo, hi] = TREATMENTS[status] ?? [0, 0];
    const treatments = rng.int(lo, hi);
    const acceptance = status === 'accepted' || index < 3 || rng.chance(0.04);
    risks.push({ status, supplier, treatments, acceptance });
  };
  if (i < 6 || rng.chance(0.35)) addRisk(true);
  if (i < 3 || rng.chance(0.15)) addRisk(false);
  const range = {} as Record<Share, [number, number]>;
  let shared = 0;
  for (const s of Object.keys(SHARES) as Share[]) {
    range[s] = [shareEnd(s, i), shareEnd(s, i + 1)];
    shared += range[s][1] - range[s][0];
  }
  const [psFrom, psTo] = range.products_services;
  const bia: boolean[] = [];
  for (let j = psFrom; j < psTo; j++) bia.push(j < 4 || rng.chance(0.85));
  const completed = assessments.filter((a) => a.status === 'completed').length;
  const assetAudit = i % 10 === 0 && range.assets[1] > range.assets[0] ? 1 : 0;
  const plan: UnitPlan = {
    i,
    assessments,
    summary: rng.chance(0.25),
    alerts: i === 0 ? 2 : rng.chance(0.25) ? rng.int(1, 2) : 0,
    risks,
    range,
    bia,
    points: i === 0 ? 53 : 0,
    audits: 1 + nA + completed + assetAudit + (i === 0 ? 4 : 0),
    total: 0,
  };
  let total = 1 + shared + plan.points + plan.audits + plan.alerts + (plan.summary ? 1 : 0);
  for (const a of assessments) total += 1 + a.gaps + (a.report ? 1 : 0) + (a.items ? 1 + a.items : 0);
  for (const r of risks) total += 1 + r.treatments + (r.acceptance ? 1 : 0);
  plan.total = total + bia.filter(Boolean).length;
  return plan;
}

// ---------------------------------------------------------------- building the records of one unit

class Unit {
  readonly out: [string, Rec][] = [];
  constructor(
    readonly ctx: Ctx,
    readonly counters: Map<string, number>,
    readonly rng: Rng,
  ) {}
  /** Running counter (per collection, or a '#name' used to cover an enumeration early). */
  tick(key: string): number {
    const n = this.counters.get(key) ?? 0;
    this.counters.set(key, n + 1);
    return n;
  }
  /** Next index and id of a collection. */
  next(coll: string): [number, string] {
    const n = this.tick(coll);
    return [n, idFor(this.ctx, coll, n)];
  }
  /** Adds created_at/updated_at to a record that has an id (updated_at: null for append-only records). */
  emit(coll: string, created: number, updated: number | null, rec: Rec): void {
    if (rec.id !== undefined) rec.created_at = iso(created);
    if (updated !== null) rec.updated_at = iso(Math.max(created, updated));
    this.out.push([coll, rec]);
  }
  person(): string {
    return `${this.rng.pick(FIRST)} ${this.rng.pick(LAST)}`;
  }
  /** A later instant in [from, now], biased towards `from`. */
  after(from: number, maxSpan = 30 * DAY): number {
    return Math.min(this.ctx.now, from + this.rng.next() ** 2 * maxSpan);
  }
  recent(): number {
    return this.ctx.now - this.rng.next() ** 1.5 * 720 * DAY;
  }
}

const user = (u: Unit): string => idFor(u.ctx, 'users', u.rng.int(0, 5));
const requestId = (u: Unit): string => `req_${u.rng.hex(3)}`;

function audit(
  u: Unit,
  at: number,
  action: string,
  actor: string,
  target: [string, string | null],
  meta: Rec,
) {
  const [, id] = u.next('audit_logs');
  const actorId = actor === 'user' ? user(u) : actor === 'api_key' ? idFor(u.ctx, 'api_keys', 0) : null;
  u.emit('audit_logs', at, null, {
    id,
    occurred_at: iso(at),
    action,
    actor_type: actor,
    actor_id: actorId,
    target_type: target[0],
    target_id: target[1],
    request_id: actor === 'system' ? null : requestId(u),
    metadata: meta,
  });
}

interface SupplierInfo {
  id: string;
  name: string;
  domain: string;
  profile: string;
  created: number;
}

function buildSupplier(u: Unit, i: number): SupplierInfo {
  const { ctx, rng } = u;
  const [, id] = u.next('suppliers');
  const sp = (i - 2) % 7 === 0 ? SPECIAL[(i - 2) / 7] : undefined;
  let name: string;
  let domain: string;
  let country: string;
  let industry: string;
  if (sp) [name, domain, country, industry] = sp;
  else {
    const combos = PREFIX.length * CORE.length;
    const round = Math.floor(i / combos);
    const pair = ((i % combos) * 7919 + ctx.pairOffset) % combos;
    const prefix = PREFIX[pair % PREFIX.length] as string;
    const [core, ind] = CORE[Math.floor(pair / PREFIX.length)] as [string, string];
    country = pick(rng, E.country);
    const [tld, legal] = COUNTRY[country] as [string, string];
    const qualifier = round ? ` ${QUALIFIER[(round - 1) % QUALIFIER.length]}` : '';
    name = `${prefix} ${core}${qualifier} ${legal}`;
    domain = `${prefix.toLowerCase()}-${core.toLowerCase()}${round ? `-${round}` : ''}${tld}`;
    industry = ind;
  }
  const status = pick(rng, E.supplierStatus, i);
  const criticality = pick(rng, E.criticality, i);
  const level = E.criticality.values.indexOf(criticality);
  const profile = i < 4 || rng.chance(0.8) ? `P${level}` : `P${rng.int(0, 3)}`;
  const created = ctx.now - rng.time(MIN_SUPPLIER_AGE_DAYS, 730) * DAY;
  const contacts = Array.from({ length: rng.int(1, 3) }, () => {
    const person = u.person();
    const [first, last] = person.split(' ') as [string, string];
    return { name: person, email: `${ascii(first)}.${ascii(last)}@${domain}` };
  });
  u.emit('suppliers', created, u.after(created, 400 * DAY), {
    id,
    name,
    domain,
    industry,
    size: pick(rng, E.size, i),
    country,
    status,
    is_active: status === 'active',
    criticality,
    risk_group: level >= 2 ? 'G1' : level === 1 ? 'G2' : 'G3',
    vendor_profile: profile,
    tags: rng.sample(TAGS, rng.int(0, 3)),
    source: pick(rng, E.source, i),
    email: `${rng.pick(['vendor-risk', 'security', 'compliance', 'privacy'])}@${domain}`,
    contacts,
    onboarding_data: {
      questionnaire: rng.pick(['SIG Lite 2024', 'CAIQ v4', 'Custom baseline v3']),
      data_access: rng.pick(['none', 'internal', 'customer_pii', 'payment_data']),
      hosting_regions: rng.sample(['eu', 'us', 'uk', 'apac'], rng.int(1, 2)),
      sso_supported: rng.chance(0.7),
      subprocessor_count: rng.int(0, 25),
      ai_data_usage: pick(rng, E.aiUsage),
    },
    annual_spend: rng.chance(0.2) ? null : rng.money(5_000, 5_000_000),
  });
  audit(u, created, 'supplier.created', rng.chance(0.7) ? 'user' : 'api_key', ['supplier', id], {
    source: 'import',
    api_key_id: idFor(ctx, 'api_keys', 0),
  });
  return { id, name, domain, profile, created };
}

/** Timeline of an assessment consistent with its status. */
function assessmentTimes(u: Unit, a: AssessmentPlan, t0: number) {
  const { now } = u.ctx;
  const rng = u.rng;
  let validity = rng.pick([365, 365, 365, 180, 730]);
  let completed: number | null = null;
  let sent: number | null;
  let created: number;
  if (a.done) {
    if (a.status === 'expired') {
      validity = [365, 180, 90, 30].find((v) => now - v * DAY - 2 * DAY > t0 + 10 * DAY) ?? 30;
      completed = rng.time(t0 + 10 * DAY, now - validity * DAY - DAY);
    } else completed = rng.time(Math.max(t0 + 10 * DAY, now - (validity - 1) * DAY), now - HOUR);
    sent = Math.max(t0, completed - rng.time(7, 45) * DAY);
    created = Math.max(t0, sent - rng.time(0, 5) * DAY);
  } else if (a.status === 'expired') {
    created = rng.time(t0, now - 40 * DAY);
    sent = created + DAY;
  } else {
    const window = a.status === 'draft' ? 60 : 120;
    created = rng.time(Math.max(t0, now - window * DAY), now - 2 * DAY);
    sent = a.status === 'draft' ? null : rng.time(created, Math.min(created + 3 * DAY, now - HOUR));
  }
  const deadline =
    sent === null ? (rng.chance(0.5) ? created + 45 * DAY : null) : sent + rng.int(30, 60) * DAY;
  return { created, sent, completed, deadline, validity };
}

function buildAssessment(u: Unit, s: SupplierInfo, a: AssessmentPlan) {
  const { rng } = u;
  const [aIndex, id] = u.next('assessments');
  const t = assessmentTimes(u, a, s.created);
  const completed = a.status === 'completed';
  const decision = completed
    ? pick(rng, a.gaps > 14 ? E.decisionPoor : E.decision, u.tick('#decision'))
    : null;
  const score =
    t.completed === null
      ? null
      : decision === 'rejected'
        ? rng.int(15, 55)
        : decision === 'approved_with_caveats'
          ? rng.int(50, 80)
          : rng.int(70, 98);
  u.emit('assessments', t.created, t.completed ?? u.after(t.sent ?? t.created), {
    id,
    supplier_id: s.id,
    assessment_type: pick(rng, E.aType, aIndex),
    status: a.status,
    decision,
    vendor_profile: rng.chance(0.8) ? s.profile : `P${rng.int(0, 3)}`,
    score,
    deadline: t.deadline === null ? null : iso(t.deadline),
    validity_days: t.validity,
    sent_at: t.sent === null ? null : iso(t.sent),
    completed_at: t.completed === null ? null : iso(t.completed),
    contract_value: rng.chance(0.3) ? null : rng.money(10_000, 2_000_000),
  });
  audit(u, t.created, 'assessment.created', 'user', ['assessment', id], { supplier_id: s.id });
  const gaps = buildGaps(u, id, a.gaps, t.sent ?? t.created, t.completed ?? t.created);
  if (t.completed === null) return;
  if (completed)
    audit(u, t.completed, 'assessment.completed', 'system', ['assessment', id], { decision, score });
  if (a.report) {
    const [, rid] = u.next('reports');
    const at = u.after(t.completed, 2 * DAY);
    u.emit('reports', at, at, {
      id: rid,
      supplier_id: s.id,
      assessment_id: id,
      title: `${s.name}: assessment report ${date(t.completed).slice(0, 7)}`,
      report_type: 'assessment',
      narrative: narrative(u, s, score ?? 0, gaps.length, decision),
      generated_at: iso(at),
    });
  }
  if (a.items) buildActionPlan(u, s, id, t.completed, a.items, gaps);
}

function narrative(u: Unit, s: SupplierInfo, score: number, gaps: number, decision: string | null): string {
  const verdict =
    decision === 'rejected'
      ? 'The relationship should not proceed until the high-severity gaps are closed.'
      : decision === 'approved_with_caveats'
        ? 'Approval is conditional on the remediation plan agreed with the supplier.'
        : 'The supplier meets the expected control baseline for its risk tier.';
  const focus = u.rng.pick([
    'access management',
    'business continuity',
    'data protection',
    'vulnerability management',
  ]);
  return (
    `${s.name} (${s.domain}) scored ${score} out of 100 with ${gaps} open gaps. ` +
    `The weakest area was ${focus}, where evidence was incomplete or outdated. ${verdict}`
  );
}

function buildGaps(u: Unit, assessmentId: string, n: number, from: number, to: number): [string, string][] {
  const { rng } = u;
  const chosen = rng.sample(CONTROLS, n);
  for (const [code, domain, title] of chosen) {
    const [, id] = u.next('gaps');
    const created = rng.time(from, to);
    const evidenceStatus = pick(rng, E.evidence);
    const review = { submitted: 'pending', accepted: 'accepted', rejected: 'rejected' }[
      evidenceStatus as 'accepted'
    ];
    const evidence =
      evidenceStatus === 'missing'
        ? []
        : rng.sample(EVIDENCE_FILES, rng.int(1, 2)).map(([file, mime]) => ({
            file_name: file,
            mime_type: mime,
            sha256: rng.hex(8),
            review_status: review,
            score: rng.int(evidenceStatus === 'rejected' ? 0 : 40, evidenceStatus === 'rejected' ? 45 : 100),
          }));
    const status = pick(rng, E.gapStatus);
    u.emit('gaps', created, u.after(created, 90 * DAY), {
      id,
      assessment_id: assessmentId,
      control_code: code,
      control_title: title,
      gap_description: `${status === 'not_met' ? 'Not met' : 'Partially met'}: ${rng.pick(FINDINGS)}.`,
      domain,
      status,
      severity: pick(rng, E.gapSeverity),
      evidence_status: evidenceStatus,
      evidence,
    });
  }
  return chosen.map(([code, , title]) => [code, title]);
}

const HISTORY: Record<string, string[]> = {
  pending: [],
  in_progress: ['pending>in_progress'],
  completed: ['pending>in_progress', 'in_progress>completed'],
  overdue: ['pending>overdue'],
  not_applicable: ['pending>not_applicable'],
  rejected: ['pending>in_progress', 'in_progress>rejected'],
};

function buildActionPlan(
  u: Unit,
  s: SupplierInfo,
  assessmentId: string,
  from: number,
  n: number,
  gaps: [string, string][],
) {
  const { rng, ctx } = u;
  const [pIndex, id] = u.next('action_plans');
  const created = u.after(from, 5 * DAY);
  const status = pick(rng, E.planStatus, pIndex);
  u.emit('action_plans', created, u.after(created, 60 * DAY), {
    id,
    supplier_id: s.id,
    assessment_id: assessmentId,
    title: `Remediation plan: ${s.name}`,
    status,
    due_date: date(created + rng.int(30, 120) * DAY),
  });
  const controls = rng.sample(gaps, Math.min(gaps.length, n));
  for (let k = 0; k < n; k++) {
    const [, iid] = u.next('action_plan_items');
    const itemStatus = pick(rng, ITEM_STATUS[status] as Weighted, u.tick(`#items-${status}`));
    const due =
      itemStatus === 'overdue'
        ? rng.time(Math.min(created, ctx.now - 10 * DAY), ctx.now - 2 * DAY)
        : itemStatus === 'pending' || itemStatus === 'in_progress'
          ? ctx.now + rng.int(2, 90) * DAY
          : created + rng.int(14, 120) * DAY;
    let at = created;
    const history = (HISTORY[itemStatus] as string[]).map((step) => {
      at = u.after(at, 20 * DAY);
      const [fromStatus, toStatus] = step.split('>');
      return {
        at: iso(at),
        from_status: fromStatus,
        to_status: toStatus,
        note: toStatus === 'overdue' ? 'Due date passed.' : rng.pick(NOTES),
        actor_id: null,
      };
    });
    const control = controls[k] && rng.chance(0.75) ? controls[k] : null;
    const [code, title] = control ?? [null, null];
    u.emit('action_plan_items', created, at, {
      id: iid,
      action_plan_id: id,
      title: control
        ? `Remediate ${code}`
        : rng.pick(['Provide updated SOC 2 report', 'Sign revised DPA', 'Share pentest results']),
      description: control
        ? `Close the gap on "${title}" and upload evidence.`
        : 'Requested by the risk team during review.',
      status: itemStatus,
      due_date: date(due),
      completed_at: itemStatus === 'completed' ? iso(at) : null,
      control_code: code,
      control_title: title,
      history,
    });
  }
}

function buildRisk(u: Unit, r: RiskPlan, s: SupplierInfo) {
  const { rng, ctx } = u;
  const [index, id] = u.next('risks');
  const domain =
    index < 4 ? (SOURCE_DOMAINS[index] as string) : pick(rng, r.supplier ? E.vendorDomain : E.orgDomain);
  const category =
    index < 5
      ? pick(rng, E.category, index)
      : domain === 'vendor'
        ? pick(rng, E.category)
        : CATEGORY_FOR[domain];
  const created = rng.time(r.supplier ? s.created : ctx.now - 700 * DAY, ctx.now - 5 * DAY);
  const exposure = rng.chance(0.2) ? null : rng.money(10_000, 10_000_000);
  const base =
    domain === 'vendor'
      ? `${s.name}: ${rng.pick(RISK_TITLES.vendor as string[])}`
      : rng.pick(RISK_TITLES[domain] as string[]);
  u.emit('risks', created, u.after(created, 200 * DAY), {
    id,
    code: `R-${String(index + 1).padStart(4, '0')}`,
    title: base,
    description: `${base}. Identified during the ${rng.pick(['annual', 'quarterly', 'ad hoc'])} risk review.`,
    risk_type: pick(rng, E.riskType, index),
    status: r.status,
    category,
    source_domain: domain,
    supplier_id: r.supplier ? s.id : null,
    likelihood: rng.int(1, 5),
    impact: rng.int(1, 5),
    financial_exposure: exposure,
  });
  for (let k = 0; k < r.treatments; k++) {
    const [tIndex, tid] = u.next('risk_treatments');
    const tStatus = r.status === 'closed' ? 'done' : pick(rng, E.treatmentStatus, tIndex);
    const tCreated = u.after(created, 60 * DAY);
    u.emit('risk_treatments', tCreated, u.after(tCreated, 90 * DAY), {
      id: tid,
      risk_id: id,
      strategy: pick(rng, E.strategy, tIndex),
      description: rng.pick([
        'Enforce MFA and quarterly access reviews.',
        'Negotiate contractual breach notification within 24 hours.',
        'Purchase cyber insurance covering third-party outages.',
        'Migrate the workload to a second provider.',
        'Run a tabletop exercise with the supplier.',
      ]),
      status: tStatus,
      cost: rng.money(1_000, 500_000),
      due_date: date(tStatus === 'done' ? tCreated + rng.int(10, 90) * DAY : ctx.now + rng.int(7, 180) * DAY),
    });
  }
  if (r.acceptance) {
    const [aIndex, aid] = u.next('risk_acceptances');
    // The first three letters belong to the first three risks (open, treated, accepted): one of each status.
    const st =
      aIndex < 3
        ? (['expired', 'revoked', 'active'][aIndex] as string)
        : r.status === 'accepted'
          ? pick(rng, E.acceptanceStatus)
          : rng.pick(['expired', 'revoked']);
    const validFrom = rng.time(Math.max(created, ctx.now - 400 * DAY), ctx.now - 3 * DAY);
    const validUntil =
      st === 'expired'
        ? rng.time(validFrom + DAY, ctx.now - HOUR)
        : Math.max(validFrom, ctx.now) + rng.int(30, 365) * DAY;
    u.emit('risk_acceptances', validFrom, st === 'active' ? validFrom : u.after(validFrom, 90 * DAY), {
      id: aid,
      risk_id: id,
      status: st,
      justification: `Residual risk within appetite; ${rng.pick(JUSTIFICATIONS)}.`,
      accepted_exposure: exposure ?? rng.money(10_000, 1_000_000),
      valid_from: iso(validFrom),
      valid_until: iso(validUntil),
    });
  }
}

function alert(u: Unit, supplier: SupplierInfo | null) {
  const { rng } = u;
  const [index, id] = u.next('alerts');
  const created = supplier ? rng.time(supplier.created, u.ctx.now) : u.recent();
  const title = rng.pick(supplier ? ALERTS : ORG_ALERTS);
  const resolved = rng.chance(0.4) ? u.after(created, 20 * DAY) : null;
  u.emit('alerts', created, resolved ?? created, {
    id,
    scope: supplier ? 'supplier' : 'org',
    supplier_id: supplier?.id ?? null,
    severity: pick(rng, E.alertSeverity, index),
    title: supplier ? `${supplier.name}: ${title}` : title,
    body: supplier
      ? `${title} for ${supplier.domain}. Review the supplier record and update the assessment if needed.`
      : `${title}. Raised automatically from workspace monitoring.`,
    resolved_at: resolved === null ? null : iso(resolved),
  });
}

/** The workspace-wide share of unit i: context, assets, threats, insights, org alerts (and the score history
 * and the key/endpoint audit trail once, in unit 0). */
function buildShared(u: Unit, p: UnitPlan) {
  const { rng, ctx } = u;
  const { range } = p;
  const crit = (index: number) => pick(rng, E.criticality, index);
  if (p.points) {
    let score = rng.int(45, 65);
    for (let k = p.points - 1; k >= 0; k--) {
      score = Math.max(0, Math.min(100, score + rng.int(-4, 4)));
      u.emit('risk_score_points', 0, null, { at: iso(ctx.now - k * 7 * DAY), score });
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
      area_id: idFor(ctx, 'areas', area),
      area_name: AREAS[area],
      criticality: crit(index),
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
      type: pick(rng, E.psType, index),
      description: `${name} offered to retail and business customers.`,
      criticality: crit(index),
      annual_revenue: rng.money(100_000, 80_000_000),
    });
    if (!p.bia[b++]) continue;
    const [bIndex, bid] = u.next('bia');
    const resulting = crit(bIndex);
    const mtpd = {
      critical: rng.int(2, 4),
      high: rng.int(8, 24),
      medium: rng.int(36, 72),
      low: rng.int(96, 336),
    }[resulting as 'low'];
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
      legal_basis: pick(rng, E.legalBasis, index),
      data_categories: categories,
      is_sensitive_data: categories.some((c) => SENSITIVE.has(c)),
      retention_period: rng.pick(RETENTION),
      owner_name: u.person(),
    });
  }
  const [aFrom, aTo] = range.assets;
  for (let j = aFrom; j < aTo; j++) {
    const [index, id] = u.next('assets');
    const type = pick(rng, E.assetType, index);
    const manual = type === 'facility' || rng.chance(0.3);
    const provider = manual ? null : pick(rng, E.provider, u.tick('#provider'));
    const region = rng.pick(REGIONS[provider ?? 'manual'] as string[]);
    const base = `${rng.pick(ASSET_NAMES[type] as string[])}-${index}`;
    const hex = rng.hex(2);
    const account = 100000000000 + (index % 7) * 111111111;
    const subscription = idFor(ctx, 'subscriptions', index % 3);
    const externalId = {
      aws: `arn:aws:ec2:${region}:${account}:instance/i-0${hex.slice(0, 8)}${index.toString(16).padStart(8, '0')}`,
      azure: `/subscriptions/${subscription}/resourceGroups/rg-${region}/providers/Microsoft.Compute/virtualMachines/${base}`,
      gcp: `projects/prod-${index % 5}/zones/${region}-b/instances/${base}`,
      oci: `ocid1.instance.oc1.${region}.${hex}${index.toString(36)}`,
      manual: `CMDB-${String(index + 1).padStart(6, '0')}`,
    }[provider ?? 'manual'];
    const created = u.recent();
    u.emit('assets', created, u.after(created, 100 * DAY), {
      id,
      external_id: externalId,
      name: base,
      asset_type: type,
      technical_criticality: crit(index),
      exposure: pick(rng, E.exposure, index),
      region,
      cloud_metadata: provider
        ? {
            account: `prod-${index % 7}`,
            instance_type: rng.pick(['m6i.large', 'n2-standard-4', 'D4s_v5', 'VM.Standard3.Flex']),
            tags: { env: rng.pick(['prod', 'staging']), owner: rng.pick(['platform', 'payments', 'data']) },
          }
        : {},
      source: manual ? 'manual' : 'cloud',
      cloud_provider: provider,
      review_status: manual || rng.chance(0.4) ? 'confirmed' : 'discovered',
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
      severity: pick(rng, E.threatSeverity, index),
      status: pick(rng, E.threatStatus, index),
      source: pick(rng, E.threatSource, index),
      cve_id: cve,
      mitre_technique_id: rng.chance(0.8) ? mitre : null,
      asset_id: aTo > 0 && rng.chance(0.7) ? idFor(ctx, 'assets', rng.int(0, aTo - 1)) : null,
    });
  }
  for (let j = range.insights[0]; j < range.insights[1]; j++) {
    const [index, id] = u.next('insights');
    const category = pick(rng, E.insightCategory, index);
    const title = fill(INSIGHTS[category] as string, {
      d: rng.int(-12, 12),
      n: rng.int(2, 40),
      p: rng.int(55, 98),
    });
    const created = u.recent();
    u.emit('insights', created, created, {
      id,
      category,
      severity: pick(rng, E.alertSeverity, index),
      title,
      body: `${title}. Computed from workspace data as of ${date(created)}; see the underlying records.`,
    });
  }
  for (let j = range.org_alerts[0]; j < range.org_alerts[1]; j++) alert(u, null);
  if (aTo > aFrom && p.i % 10 === 0)
    audit(u, u.recent(), 'assets.upserted', 'api_key', ['asset', idFor(ctx, 'assets', aFrom)], {
      created: aTo - aFrom,
      updated: 0,
    });
  if (p.i === 0) {
    const t = ctx.now - 729 * DAY;
    audit(u, t, 'api_key.created', 'user', ['api_key', idFor(ctx, 'api_keys', 0)], { name: 'SIEM export' });
    audit(u, t + DAY, 'api_key.created', 'user', ['api_key', idFor(ctx, 'api_keys', 1)], {
      name: 'GRC sync',
    });
    audit(u, t + 300 * DAY, 'api_key.revoked', 'user', ['api_key', idFor(ctx, 'api_keys', 1)], {});
    audit(
      u,
      t + 2 * DAY,
      'webhook_endpoint.created',
      'user',
      ['webhook_endpoint', idFor(ctx, 'webhook_endpoints', 0)],
      {
        events: ['assessment.completed', 'alert.created'],
      },
    );
  }
}

function buildUnit(ctx: Ctx, counters: Map<string, number>, p: UnitPlan): [string, Rec][] {
  const u = new Unit(ctx, counters, new Rng(ctx.seed, SALT_BUILD, p.i));
  const s = buildSupplier(u, p.i);
  for (const a of p.assessments) buildAssessment(u, s, a);
  if (p.summary) {
    const [, id] = u.next('reports');
    const at = u.rng.time(s.created, ctx.now);
    const summary = narrative(u, s, u.rng.int(40, 95), u.rng.int(0, 12), null);
    u.emit('reports', at, at, {
      id,
      supplier_id: s.id,
      assessment_id: null,
      title: `${s.name}: executive summary`,
      report_type: 'executive_summary',
      narrative: `${s.name} supports ${u.rng.int(1, 6)} business processes. ${summary}`,
      generated_at: iso(at),
    });
  }
  for (let k = 0; k < p.alerts; k++) alert(u, s);
  for (const r of p.risks) buildRisk(u, r, s);
  buildShared(u, p);
  return u.out;
}

// ---------------------------------------------------------------- public API

function context(options: SeedOptions): Ctx {
  const suppliers = options.size.suppliers;
  if (!Number.isInteger(suppliers) || suppliers < 0)
    throw new RangeError('size.suppliers must be an integer >= 0');
  const seed = (options.seed ?? 1) | 0;
  const now = options.now ? options.now.getTime() : Math.floor(Date.now() / DAY) * DAY;
  if (!Number.isFinite(now)) throw new RangeError('now must be a valid date');
  return { seed, now, suppliers, pairOffset: fmix(mix(seed, 0x0ff5e7)) % (PREFIX.length * CORE.length) };
}

function* plans(ctx: Ctx): Generator<UnitPlan> {
  const st: PlanState = { assessments: 0, risks: 0 };
  for (let i = 0; i < ctx.suppliers; i++) yield planUnit(ctx, st, i);
}

/** Import documents of at most `batchSize` records each (default 2000), in dependency order: a record only
 * refers to records of the same or an earlier batch. */
export function* generateSeedBatches(options: SeedOptions): Generator<ImportDocument> {
  const ctx = context(options);
  const batchSize = options.batchSize ?? 2000;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new RangeError('batchSize must be a positive integer');
  const counters = new Map<string, number>();
  let doc: ImportDocument = {};
  let n = 0;
  for (const plan of plans(ctx)) {
    for (const [coll, rec] of buildUnit(ctx, counters, plan)) {
      let arr = doc[coll];
      if (!arr) {
        arr = [];
        doc[coll] = arr;
      }
      arr.push(rec);
      if (++n === batchSize) {
        yield doc;
        doc = {};
        n = 0;
      }
    }
  }
  if (n > 0) yield doc;
}

/** The whole data set as one document (for small sizes). */
export function generateSeedDocument(options: SeedOptions): ImportDocument {
  const all: ImportDocument = {};
  for (const batch of generateSeedBatches({ ...options, batchSize: Number.MAX_SAFE_INTEGER })) {
    for (const [coll, recs] of Object.entries(batch)) {
      const arr = all[coll] ?? [];
      for (const r of recs) arr.push(r);
      all[coll] = arr;
    }
  }
  return all;
}

/** Total number of records `generateSeedBatches` yields, computed from the plans only. */
export function countSeedRecords(options: SeedOptions): number {
  let total = 0;
  for (const plan of plans(context(options))) total += plan.total;
  return total;
}
