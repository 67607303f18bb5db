export { type DownloadedResult, type DownloadOptions, partFile } from './downloadResult.ts';
export { type RunUpgradeInput, type RunUpgradeOptions, type UpgradeOutcome, runUpgrade } from './runUpgrade.ts';
export {
  type CreateRequestInput,
  type UpgradeAim,
  type UpgradeClient,
  type UpgradeStatus,
  platformBaseUrl,
  upgradeClient,
} from './upgradeClient.ts';
export {
  type PlatformFailure,
  type UpgradeErrorKind,
  type UpgradeRequestRef,
  UpgradeServiceError,
  maskSecret,
  redact,
} from './upgradeServiceError.ts';
export { type UpgradePhase, type UpgradeState, upgradeStateOf } from './upgradeState.ts';
