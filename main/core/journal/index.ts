export { Journal, type JournalOptions } from './journal.js';
export { DEFAULT_MAX_BYTES, type JournalRecord, type JournalRecordInput } from './records.js';
export { redactForJournal } from './redact.js';
export { exportJournal, verifyJournal, type JournalProblem, type JournalVerification, type ProblemKind } from './verify.js';
