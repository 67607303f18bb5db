# One image for every Forja process; the command names the entry point, e.g.
#   docker run forja services/executor/main.ts
# Processes run from TypeScript source through tsx (a devDependency), so dev dependencies stay in.

# --- dependencies: only the manifests, so source edits do not re-run npm ci ---
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund && npm cache clean --force

# --- runtime ---
FROM node:20-bookworm-slim
WORKDIR /app
# Containers must listen on all interfaces (the default, 127.0.0.1, is for `npm start`);
# blobs, logs and any private state go to /data, a volume in compose.yaml.
ENV NODE_ENV=production \
    FORJA_HOST=0.0.0.0 \
    FORJA_DATA_DIR=/data \
    LOG_FORMAT=json
# git and ssh: the executor clones instances' repositories and the control-plane verifies them,
# with the projects' SSH keys (ssh-keygen reads and generates the keyring's keys).
RUN apt-get update && apt-get install -y --no-install-recommends git openssh-client ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=deps /app/node_modules ./node_modules
COPY . .
# /data is created here and owned by `node`, so a fresh named volume mounted on it is writable
# by the non-root user (Docker copies ownership into an empty volume).
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080 8081 8082 8084
ENTRYPOINT ["node", "--import", "tsx"]
CMD ["projections/main.ts"]
