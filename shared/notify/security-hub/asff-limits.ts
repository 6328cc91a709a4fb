/**
 * The limits of the AWS Security Finding Format (ASFF) and of `BatchImportFindings` that findings are
 * built within and checked against. Each is what AWS documents:
 *
 * - `AwsSecurityFinding` in the Security Hub API Reference (API_AwsSecurityFinding; the same text is
 *   in the `@aws-sdk/client-securityhub` model): `Id` and `GeneratorId` 1 to 512 characters, `Title`
 *   1 to 256, `Description` 1 to 1,024, `Types` at most 50, `Resources` 1 to 32, `ProductFields` at
 *   most 50 pairs with keys of up to 128 and values of up to 2,048 characters, `Recommendation.Text`
 *   1 to 512, `Severity.Original` 1 to 64, `AwsAccountId` 12 characters.
 * - "Other" (asff-resourcedetails-other in the Security Hub User Guide): `Details.Other` holds up to 50
 *   pairs, each key fewer than 128 characters and each value fewer than 1,024.
 * - "BatchImportFindings for finding providers" (finding-update-batchimportfindings): up to 100
 *   findings and 6 MB a request, 240 KB a finding, 10 requests a second per account and Region (a
 *   burst of 30).
 *
 * Where AWS documents no limit (a resource's `Id`, `SourceUrl`, one string of `Types`), the cap here
 * is this project's own, chosen well inside anything Security Hub takes, and named as such.
 */

/** The only ASFF schema version. */
export const ASFF_SCHEMA_VERSION = '2018-10-08';

export const MAX_FINDING_ID_LENGTH = 512;
export const MAX_GENERATOR_ID_LENGTH = 512;
export const MAX_TITLE_LENGTH = 256;
export const MAX_DESCRIPTION_LENGTH = 1_024;
export const MAX_RECOMMENDATION_TEXT_LENGTH = 512;
export const MAX_SEVERITY_ORIGINAL_LENGTH = 64;
export const MAX_TYPES = 50;
export const MAX_RESOURCES = 32;
export const MAX_PRODUCT_FIELDS = 50;
export const MAX_PRODUCT_FIELD_KEY_LENGTH = 128;
export const MAX_PRODUCT_FIELD_VALUE_LENGTH = 2_048;
export const MAX_OTHER_DETAILS = 50;
/** "Fewer than 128 characters". */
export const MAX_OTHER_DETAIL_KEY_LENGTH = 127;
/** "Fewer than 1,024 characters". */
export const MAX_OTHER_DETAIL_VALUE_LENGTH = 1_023;
export const MAX_RESOURCE_TYPE_LENGTH = 256;

/** This project's own cap on a resource's `Id`: AWS documents none. */
export const MAX_RESOURCE_ID_LENGTH = 512;
/** This project's own cap on `SourceUrl`: AWS documents none. */
export const MAX_SOURCE_URL_LENGTH = 2_048;
/** This project's own cap on one string of `Types`: AWS documents none. */
export const MAX_TYPE_LENGTH = 256;

/** A finding's size as JSON, in bytes: "240 Kb", read as the smaller 240,000. */
export const MAX_FINDING_BYTES = 240_000;
/** Findings in one `BatchImportFindings` request. */
export const MAX_BATCH_FINDINGS = 100;
/** One request's body in bytes: "6 MB", read as the smaller 6,000,000. */
export const MAX_BATCH_BYTES = 6_000_000;
/** `BatchImportFindings` requests a second, per account and Region. */
export const MAX_REQUESTS_PER_SECOND = 10;

/** The namespaces a `Types` string starts with (the ASFF types taxonomy). */
export const TYPE_NAMESPACES = [
  'Software and Configuration Checks',
  'TTPs',
  'Effects',
  'Unusual Behaviors',
  'Sensitive Data Identifications',
] as const;

/** `Severity.Label` values, lowest first. */
export const SEVERITY_LABELS = ['INFORMATIONAL', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;

export type SeverityLabel = (typeof SEVERITY_LABELS)[number];
