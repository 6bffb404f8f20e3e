// The audit-chain check on the management listener (docs/decisions.md P97, P103). Contract only; the handler
// is admin.ts.
import { operation, operator } from '../../contract/operation.js';
import { NO_RECORD, ok } from '../../contract/operator.js';
import { AuditChainQuery, AuditChainReport } from './schema.js';

export const verifyAuditChain = operation({
  id: 'verifyAuditChain',
  method: 'GET',
  path: '/workspaces/:id/audit-chain',
  auth: operator(),
  tag: 'Workspaces',
  summary: "Verify a workspace's audit hash chain and report the first broken link",
  description:
    'Recomputes every entry in feed order, a bounded chunk a statement. Without `limit`, the answer is the ' +
    'verdict on the whole trail. With it, each answer checks at most `limit` entries and, while no link is ' +
    'broken and entries remain, carries `next_cursor` to continue: the verdict is the answer without one.',
  query: AuditChainQuery,
  responses: { 200: ok(AuditChainReport), 404: NO_RECORD },
});

export const auditLogsLifecycle = { verifyAuditChain };
