import type { InternalAxiosRequestConfig } from 'axios';

const ABSOLUTE = /^([a-z][a-z\d+\-.]*:)?\/\//i;

/**
 * The request's URL as axios builds it from `baseURL` and `url` (its buildFullPath rules, `params` left out),
 * for the `url` of retry events.
 */
export function requestUrl(config: InternalAxiosRequestConfig): string | undefined {
  const { baseURL, url } = config;
  if (!baseURL || (url !== undefined && ABSOLUTE.test(url) && config.allowAbsoluteUrls !== false)) return url;
  if (!url) return baseURL;
  return `${baseURL.replace(/\/?\/$/, '')}/${url.replace(/^\/+/, '')}`;
}
