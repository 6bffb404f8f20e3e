// Import collections of this area (management-api.md "Import document"), parents first.
export function registerAssessmentsImports(): void {}
