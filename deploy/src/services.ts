/** The service table of the runtime (dependency-free), under the names the launcher uses. */
export { SERVICES, SERVICE_NAMES, peerUrl as serviceUrl, type ServiceName } from "@vestibule/shared/registry";
