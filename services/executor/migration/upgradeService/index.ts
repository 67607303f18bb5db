export { ORIGIN_DUMP_NAME, RESULT_EXTRAS, type RunUpgradeInput, type RunUpgradeOptions, type UpgradeOutcome, runUpgrade } from './runUpgrade.ts';
export { type SshTarget, transferFiles } from './sshTransfer.ts';
export {
  type CreateRequestInput,
  type TransferGrant,
  type UpgradeAim,
  type UpgradeClient,
  type UpgradeStatus,
  nodeUrl,
  platformBaseUrl,
  upgradeClient,
} from './upgradeClient.ts';
export { type UpgradeErrorKind, type UpgradeRequestRef, UpgradeServiceError, maskSecret, redact } from './upgradeServiceError.ts';
export { type UpgradePhase, type UpgradeState, upgradeStateOf } from './upgradeState.ts';
