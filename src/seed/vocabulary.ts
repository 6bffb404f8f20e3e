// The word lists the seed data is written from. Draws pick from these lists by position, so their order
// (and length) is part of the output: reordering or adding an entry changes the data.
import type { InsightCategory } from '../resources/alerts/schema.js';
import type { AssetType, CloudProvider } from '../resources/assets/schema.js';
import type { RiskCategory, RiskSourceDomain } from '../resources/risks/schema.js';

type CloudProviderName = (typeof CloudProvider)[number];

const words = (list: string): string[] => list.split('|');

/** Top-level domain and the usual legal form of a company, per country. */
export const COUNTRIES = {
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
} satisfies Record<string, [tld: string, legalForm: string]>;
export type CountryCode = keyof typeof COUNTRIES;

/** Supplier names are "<prefix> <core> [<qualifier>] <legal form>": every prefix with every core, then again
 * with a qualifier. */
export const NAME_PREFIXES = words(
  'Apex|Atlas|Beacon|Boreal|Brightwater|Catalyst|Cedar|Cobalt|Crescent|Delta|Evergreen|Falcon|Granite|Halcyon|' +
    'Harbor|Helix|Horizon|Ironclad|Juniper|Keystone|Lumen|Meridian|Nimbus|Northwind|Oakridge|Orbit|Pinnacle|' +
    'Quantum|Redwood|Sapphire|Sentinel|Silverline|Summit|Tandem|Trident|Vantage|Vertex|Wavecrest|Zenith|Kestrel',
);
/** `core:industry`: the core word of a name and the industry it implies. */
export const NAME_CORES = words(
  'Data:Technology|Cloud:Cloud Services|Payments:Financial Services|Analytics:Technology|Security:Cybersecurity|' +
    'Systems:Technology|Networks:Telecommunications|Health:Healthcare|Software:Technology|Consulting:Professional Services|' +
    'Labs:Research|Digital:Marketing|Robotics:Manufacturing|Energy:Energy|Capital:Financial Services|Media:Media|' +
    'Telecom:Telecommunications|Hosting:Cloud Services|Compliance:Professional Services|Payroll:HR Services|' +
    'Freight:Logistics|Biotech:Life Sciences|Insights:Market Research|Solutions:IT Services|Logistics:Logistics',
).map((s) => s.split(':') as [core: string, industry: string]);
/** Prefix × core combinations: the names of one round of suppliers. */
export const NAME_PAIRS = NAME_PREFIXES.length * NAME_CORES.length;
export const NAME_QUALIFIERS = words(
  'Europe|Global|Group|International|Partners|Services|Holdings|Americas|Nordic|Asia',
);
/** Suppliers whose names exercise non-ASCII text (accents, Greek, Polish, Japanese). */
export const NON_ASCII_SUPPLIERS: [name: string, domain: string, country: CountryCode, industry: string][] = [
  ['Müller Logistik GmbH', 'mueller-logistik.de', 'DE', 'Logistics'],
  ['Société Générale de Données SA', 'sgdonnees.fr', 'FR', 'Data Services'],
  ['Ζήτα Analytics S.A.', 'zeta-analytics.gr', 'GR', 'Technology'],
  ['Øresund Datacenter ApS', 'oresund-dc.dk', 'DK', 'Cloud Services'],
  ['Łódź Systemy Sp. z o.o.', 'lodz-systemy.pl', 'PL', 'IT Services'],
  ['東京クラウド株式会社', 'tokyo-cloud.jp', 'JP', 'Cloud Services'],
];
export const SUPPLIER_TAGS = words(
  'cloud|payments|critical-path|eu-data|soc2|iso27001|pci-dss|hipaa|ai-vendor|subprocessor|offshore|strategic',
);
export const FIRST_NAMES = words(
  'Alice|Bruno|Chloé|David|Elena|Farid|Grace|Hiroshi|Ingrid|José|Kofi|Lena|Marta|Nikhil|Olivia|Pablo|Quinn|' +
    'Rafael|Sofia|Tomás|Uma|Victor|Wei|Ximena|Yusuf|Zoë|Søren|Łukasz|François|Aisha',
);
export const LAST_NAMES = words(
  'Andersson|Becker|Chen|Dubois|Evans|Fischer|García|Hansen|Ivanova|Johnson|Kowalski|López|Müller|Nakamura|' +
    "Okafor|Patel|Rossi|Schmidt|Tanaka|Novak|Walsh|Yılmaz|Zhang|O'Brien|Silva|Kim|Moreau|Haddad|Nguyen|Brennan",
);
/** `code~domain~title` of the controls an assessment checks (ISO 27001, NIST CSF, CIS, GDPR). */
export const CONTROLS = `
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
GDPR-ART.33~privacy~Breach notification within 72 hours
`
  .trim()
  .split('\n')
  .map((s) => s.split('~') as [code: string, domain: string, title: string]);
export const GAP_FINDINGS = words(
  'no documented evidence was provided|the policy exists but has not been reviewed in over two years|' +
    'the control is implemented for production only|ownership is not assigned|testing is not performed regularly|' +
    'exceptions are not tracked|the control relies on a manual process with no audit trail|' +
    'coverage excludes subcontractors|the last test failed and no retest is scheduled',
);
export const EVIDENCE_FILES: [fileName: string, mimeType: string][] = [
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
/** Regions per cloud provider; `manual` holds the sites of assets outside any cloud. */
export const REGIONS: Record<CloudProviderName | 'manual', string[]> = {
  aws: words('us-east-1|us-west-2|eu-west-1|eu-central-1|ap-southeast-1'),
  azure: words('eastus|westeurope|northeurope|uksouth|japaneast'),
  gcp: words('us-central1|europe-west1|europe-west3|asia-northeast1'),
  oci: words('us-ashburn-1|eu-frankfurt-1|uk-london-1'),
  manual: words('on-prem-frankfurt|on-prem-dallas|hq-london|colo-amsterdam|branch-singapore'),
};
export const ASSET_NAMES: Record<(typeof AssetType)[number], string[]> = {
  application: words('customer-portal|billing-service|crm|hr-suite|mobile-api|partner-gateway|data-pipeline'),
  infrastructure: words('k8s-cluster|vpn-gateway|edge-lb|bastion-host|db-primary|message-broker'),
  data: words('customer-db|analytics-warehouse|backup-bucket|log-archive|payments-ledger'),
  device: words('laptop-fleet|pos-terminal|badge-reader|firewall-appliance'),
  facility: words('hq-datacenter|warehouse|branch-office'),
  third_party: words('saas-email|payroll-provider|cdn|support-desk'),
  other: words('legacy-fax-gateway|test-harness|shared-drive'),
};
export const THREATS: [title: string, mitreTechnique: string][] = [
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
/** Risk titles per source domain; a vendor risk's title is prefixed with the supplier's name. */
export const RISK_TITLES: Record<(typeof RiskSourceDomain)[number], string[]> = {
  vendor: words(
    'concentration on a single provider|inadequate incident notification terms|sub-processor outside the EU|' +
      'financial instability|weak access management|no tested business continuity plan',
  ),
  cyber: words(
    'Ransomware on core file servers|Unpatched internet-facing VPN|Credential stuffing on customer portal|' +
      'Cloud storage misconfiguration|Insider data exfiltration',
  ),
  privacy: words(
    'Retention beyond legal limits|Missing records of processing|International transfers without safeguards|' +
      'Excessive access to health data',
  ),
  human: words(
    'Key person dependency in treasury|Insufficient security awareness|High turnover in the SOC|Pandemic absenteeism',
  ),
};
/** The category of an organizational risk follows from its source domain. */
export const RISK_CATEGORY_BY_DOMAIN: Record<
  Exclude<(typeof RiskSourceDomain)[number], 'vendor'>,
  (typeof RiskCategory)[number]
> = { cyber: 'technological', privacy: 'legal', human: 'human' };
export const AREAS = words('Finance|Operations|IT|Human Resources|Sales|Legal|Customer Service');
export const PROCESSES = words(
  'Order to cash|Procure to pay|Payroll|Customer onboarding|Incident response|Month-end close|Claims handling|' +
    'Recruitment|Product release|Customer support|Vendor management|Treasury',
);
export const OFFERINGS = words(
  'Online banking|Card issuing|Mobile app|Data platform|Managed hosting|Analytics suite|Payment gateway|' +
    'Customer support plan|Insurance policy administration|Loyalty program',
);
export const DATA_CATEGORIES = words(
  'contact|identity|financial|health|location|employment|biometric|behavioral',
);
export const SENSITIVE_DATA_CATEGORIES = new Set(['health', 'biometric']);
export const RETENTION_PERIODS = words(
  '90 days|12 months|24 months|5 years|7 years|10 years|Until contract end plus 6 years',
);
export const SUPPLIER_ALERT_TITLES = words(
  'SOC 2 report expired|Domain found in a credential dump|TLS certificate expires within 7 days|' +
    'Data breach reported in the press|Assessment deadline missed|New critical CVE affects a supplier product|' +
    'Sanctions list match requires review|Sub-processor added without notice',
);
export const ORG_ALERT_TITLES = words(
  'Risk appetite exceeded for cyber risks|Scanner connector failing for 24 hours|' +
    'Three assessments overdue this month|Critical supplier without a valid assessment|Quarterly access review due',
);
/** Insight titles; `{d}`, `{n}` and `{p}` are filled with a change, a count and a percentage. */
export const INSIGHT_TITLES: Record<(typeof InsightCategory)[number], string> = {
  risk_trend: 'Overall risk score moved {d} points over the last 30 days',
  supplier_concentration: '{n} critical services depend on a single cloud provider',
  compliance_gap: '{n} suppliers lack evidence for multi-factor authentication',
  scanner_health: 'External scan coverage dropped to {p}% of supplier domains',
  assessment_velocity: 'Median assessment cycle time is {n} days',
  other: '{n} suppliers have no assigned business owner',
};
export const ACCEPTANCE_JUSTIFICATIONS = words(
  'compensating controls in place|exit planned|cost of mitigation exceeds exposure',
);
export const ITEM_NOTES = words(
  'Supplier confirmed the fix is scheduled.|Evidence uploaded, pending review.|Waiting on supplier response.|' +
    'Discussed in the quarterly business review.|Compensating control accepted by the CISO.',
);
