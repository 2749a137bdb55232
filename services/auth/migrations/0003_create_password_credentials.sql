-- Password credentials. `password_hash` is a PHC / Modular Crypt Format string: argon2id for passwords set here,
-- or an imported bcrypt hash until the user's next successful sign-in re-hashes it to argon2id.
CREATE TABLE password_credentials (
  project_id text NOT NULL,
  user_id uuid NOT NULL,
  password_hash text NOT NULL CHECK (password_hash LIKE '$%'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, user_id)
);
