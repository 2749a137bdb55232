/**
 * @vestibule/ui: the UI kit of the Vestibule frontends (shared by host and remotes as one MF singleton).
 */
export { ThemeStyles, ThemeToggle, setTheme, useTheme, THEME_STORAGE_KEY } from "./theme.tsx";
export type { ThemeName } from "./theme.tsx";
export { Link, matchPath, navigate, replaceAddress, useLocation } from "./router.tsx";
export type { LocationState } from "./router.tsx";
export { INTERACTIVE_RATE_LIMIT_WAIT_MS, UNHANDLED_ERROR_MESSAGE, errorCode, errorMessage, retryAfterSeconds } from "./errors.ts";
export { ErrorAlert, ErrorAudienceProvider, useErrorAudience, useRetryCountdown } from "./error-alert.tsx";
export { knownErrorSentence, schemaErrorSentence, schemaProblems, sentenceForProblem, statusSentence } from "./plain-errors.ts";
export type { ErrorAudience, SchemaProblem } from "./plain-errors.ts";
export { loadRuntimeConfig, loadRuntimeManifest } from "./runtime.ts";
export type { ManifestRemote, RuntimeConfig, RuntimeManifest } from "./runtime.ts";
export {
  Alert,
  Avatar,
  Button,
  Card,
  CopyField,
  Dialog,
  PasswordField,
  Progress,
  Select,
  Skeleton,
  Spinner,
  Switch,
  TextArea,
  TextField,
  useAction,
  useLoad,
  useTitle,
} from "./components.tsx";
export type { ButtonProps, TextFieldProps } from "./components.tsx";
export { ConfirmButton } from "./confirm.tsx";
export type { ConfirmButtonProps } from "./confirm.tsx";
export { CursorTable, Table } from "./data-table.tsx";
export { ApiKeyTable } from "./api-key-table.tsx";
export type { ListedApiKey, RevokeAction } from "./api-key-table.tsx";
export { AsyncSection, ErrorBoundary } from "./error-boundary.tsx";
export { TabList, tabPanelProps } from "./tabs.tsx";
export type { TabItem } from "./tabs.tsx";
export type { Column, Page } from "./data-table.tsx";
export { AREA_CONTRACT_VERSION } from "./area.ts";
export type { AreaProps, DashboardProject } from "./area.ts";
export { createAdminHandles } from "./admin-session.ts";
export type { AdminCredentials, AdminHandles } from "./admin-session.ts";
// Dashboard-only, not in the hosted pages' bundle: `@vestibule/ui/production-checks`, `@vestibule/ui/admin-audience`.
export { mountStandaloneArea } from "./standalone.tsx";
export type { StandaloneConfig } from "./standalone.tsx";
