import { lookupIp } from "@vestibule/shared/geoip";
import type { IpInfoJson } from "./store/session-store.ts";

/** Geo-IP of an end-user IP, or null when unknown (private addresses, not in the database). */
export type IpLocator = (ip: string) => IpInfoJson | null;

/** The offline geo-IP database shipped with the shared runtime (null for private, loopback and unknown addresses). */
export const locateIp: IpLocator = (ip) => lookupIp(ip);
