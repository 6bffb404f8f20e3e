// The SDK's version, sent in its User-Agent. It is the `version` of sdk/package.json (test/cross-cutting/sdk.test.ts
// fails when the two differ): the package cannot read its own manifest from both its ES module and
// CommonJS builds without a dependency on how it was installed.
export const SDK_VERSION = '1.0.0';
