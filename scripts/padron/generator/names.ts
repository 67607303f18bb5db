import type { Random } from './random.ts';

// Latin-1 on purpose: Ñ and accented vowels are what breaks a decoder that assumes UTF-8.
const SURNAMES = [
  'GONZÁLEZ', 'RODRÍGUEZ', 'GÓMEZ', 'FERNÁNDEZ', 'LÓPEZ', 'DÍAZ', 'MARTÍNEZ', 'PÉREZ', 'GARCÍA', 'SÁNCHEZ',
  'ROMERO', 'SOSA', 'ÁLVAREZ', 'TORRES', 'RUIZ', 'RAMÍREZ', 'FLORES', 'BENÍTEZ', 'ACOSTA', 'MEDINA',
  'MUÑOZ', 'IBÁÑEZ', 'NÚÑEZ', 'PEÑA', 'CASTAÑO', 'OLIVERA', 'ETCHEVERRIGARAY', 'BERTUCCELLI', 'FINCATI', 'QUIROGA',
] as const;
const GIVEN_NAMES = [
  'JUAN CARLOS', 'MARÍA DOLORES', 'JOSÉ LUIS', 'ANA MARÍA', 'MARTÍN', 'SOFÍA', 'LUCÍA', 'JAVIER', 'NICOLÁS', 'INÉS',
  'ENRIQUE', 'RAÚL', 'MÓNICA', 'HÉCTOR', 'ÁNGEL', 'BEATRIZ', 'CRISTIAN', 'NOELIA', 'FACUNDO', 'AGUSTINA',
] as const;
const COMPANY_WORDS = [
  'CABAÑA', 'AGROPECUARIA', 'LA BLANQUITA', 'DISTRIBUIDORA', 'DEL NORTE', 'LOGÍSTICA', 'CONSTRUCCIONES', 'EL ÑANDÚ',
  'COMERCIAL', 'INDUSTRIAS', 'PAMPA', 'ALIMENTOS', 'SERVICIOS', 'TÉCNICOS', 'SAN MARTÍN', 'LOS ÁLAMOS',
] as const;
const COMPANY_FORMS = ['S.A.', 'S.R.L.', 'S.A.S.', 'S.C.', 'SOCIEDAD DE HECHO'] as const;

/** A razón social: `SURNAME GIVEN NAMES` for people, words and a legal form for companies. */
export function createName(random: Random, company: boolean): string {
  if (!company) return `${random.pick(SURNAMES)} ${random.pick(GIVEN_NAMES)}`;
  const words = random.chance(0.5) ? `${random.pick(COMPANY_WORDS)} ${random.pick(COMPANY_WORDS)}` : random.pick(COMPANY_WORDS);
  return `${words} ${random.pick(COMPANY_FORMS)}`;
}
