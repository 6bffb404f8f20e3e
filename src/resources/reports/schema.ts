// Report: risk-data-api.md "Report", resources.md "Report".
import { Type } from 'typebox';
import { DateTime, Nullable, StringEnum, Uuid } from '../../schema/fields.js';
import { defineResource, field } from '../../schema/resource.js';

export const PdfStatus = ['pending', 'ready'] as const;

// The stored object key (column pdf_object_key) is not a field: it never leaves the server, and an import
// cannot set it, so an imported report has no PDF until it is rendered.
export const Report = defineResource({
  name: 'Report',
  table: 'reports',
  description: 'Report metadata and narrative. The PDF is fetched through GET /reports/{id}/pdf.',
  fields: {
    id: field(Uuid),
    supplier_id: field(Uuid, { required: true }),
    assessment_id: field(Nullable(Uuid)),
    title: field(Type.String({ minLength: 1, maxLength: 500 }), { required: true }),
    report_type: field(
      Type.String({
        minLength: 1,
        maxLength: 50,
        description: 'For instance `assessment`, `executive_summary`.',
      }),
      { required: true },
    ),
    narrative: field(Type.String({ maxLength: 100_000, description: 'The report text.' })),
    pdf_status: field(StringEnum(PdfStatus, '`ready` once a PDF exists.'), {
      sql: "(case when $t.pdf_object_key is null then 'pending' else 'ready' end)",
    }),
    generated_at: field(DateTime, { keptText: true }),
    created_at: field(DateTime, { keptText: true }),
    updated_at: field(DateTime, { keptText: true }),
  },
});
