import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import type { SASLOptions } from 'kafkajs';
import { AppConfig, KAFKA_SECURITY_KEYS, kafkaTlsEnabled, loadConfig } from '@flaglens/config';

/** TLS and SASL of a Kafka connection, as kafkajs takes them (both absent: plaintext). */
export interface KafkaSecurity {
  ssl?: ConnectionOptions | true;
  sasl?: SASLOptions;
}

/**
 * The Kafka security a validated configuration asks for (loadConfig checked the variables and the files).
 * The files are read here, once per client; the returned object holds secrets: never log it.
 */
export function kafkaSecurity(config: AppConfig): KafkaSecurity {
  const security: KafkaSecurity = {};
  if (kafkaTlsEnabled(config)) {
    const ca = config.KAFKA_SSL_CA_FILE ? readFileSync(config.KAFKA_SSL_CA_FILE, 'utf8') : undefined;
    const cert = config.KAFKA_SSL_CERT_FILE ? readFileSync(config.KAFKA_SSL_CERT_FILE, 'utf8') : undefined;
    const key = config.KAFKA_SSL_KEY_FILE ? readFileSync(config.KAFKA_SSL_KEY_FILE, 'utf8') : undefined;
    security.ssl =
      ca || cert || key
        ? {
            ...(ca ? { ca } : {}),
            ...(cert ? { cert } : {}),
            ...(key ? { key, passphrase: config.KAFKA_SSL_KEY_PASSWORD } : {}),
          }
        : true;
  }
  if (config.KAFKA_SASL_MECHANISM && config.KAFKA_SASL_USERNAME && config.KAFKA_SASL_PASSWORD) {
    security.sasl = {
      mechanism: config.KAFKA_SASL_MECHANISM,
      username: config.KAFKA_SASL_USERNAME,
      password: config.KAFKA_SASL_PASSWORD,
    } as SASLOptions;
  }
  return security;
}

/** The same from the process environment, for tools without a loaded AppConfig (bench, chaos, tests). */
export function kafkaSecurityFromEnv(env: NodeJS.ProcessEnv = process.env): KafkaSecurity {
  const only: NodeJS.ProcessEnv = {};
  for (const key of KAFKA_SECURITY_KEYS) if (env[key] !== undefined) only[key] = env[key];
  return kafkaSecurity(loadConfig(only));
}
