{{/* Names and labels shared by every object of the release. */}}

{{- define "keyflow.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "keyflow.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* The selector of one component (api or worker): stable across upgrades. */}}
{{- define "keyflow.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "keyflow.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "keyflow.secretName" -}}
{{- default (printf "%s-secrets" (include "keyflow.fullname" .)) .Values.secrets.existingSecret -}}
{{- end -}}

{{- define "keyflow.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "keyflow.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/*
The environment both processes read: the ConfigMap, the Secret's keys, and
Temporal's TLS files when a TLS Secret is named.
*/}}
{{- define "keyflow.env" -}}
envFrom:
  - configMapRef:
      name: {{ include "keyflow.fullname" . }}
env:
  - name: KEYFLOW_KEK
    valueFrom:
      secretKeyRef: { name: {{ include "keyflow.secretName" . }}, key: KEYFLOW_KEK }
  - name: MONGODB_URI
    valueFrom:
      secretKeyRef: { name: {{ include "keyflow.secretName" . }}, key: MONGODB_URI }
  - name: TEMPORAL_API_KEY
    valueFrom:
      secretKeyRef: { name: {{ include "keyflow.secretName" . }}, key: TEMPORAL_API_KEY, optional: true }
{{- with .Values.temporal.tls }}
{{- if .existingSecret }}
  - name: TEMPORAL_TLS_CA
    value: /etc/keyflow/temporal-tls/ca.crt
{{- if .clientCertificate }}
  - name: TEMPORAL_TLS_CERT
    value: /etc/keyflow/temporal-tls/tls.crt
  - name: TEMPORAL_TLS_KEY
    value: /etc/keyflow/temporal-tls/tls.key
{{- end }}
{{- if .serverName }}
  - name: TEMPORAL_TLS_SERVER_NAME
    value: {{ .serverName | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/* Volumes of both processes: a scratch /tmp (the root filesystem is read-only) and Temporal's TLS files. */}}
{{- define "keyflow.volumes" -}}
volumes:
  - name: tmp
    emptyDir: {}
{{- if .Values.temporal.tls.existingSecret }}
  - name: temporal-tls
    secret:
      secretName: {{ .Values.temporal.tls.existingSecret }}
      defaultMode: 288 # 0440: read by the owner and group (fsGroup)
{{- end }}
{{- end -}}

{{- define "keyflow.volumeMounts" -}}
volumeMounts:
  - name: tmp
    mountPath: /tmp
{{- if .Values.temporal.tls.existingSecret }}
  - name: temporal-tls
    mountPath: /etc/keyflow/temporal-tls
    readOnly: true
{{- end }}
{{- end -}}

{{/* Settings the chart sets itself: `config` may not repeat them. */}}
{{- define "keyflow.fixedSettings" -}}
ISSUER BIND_ADDRESS PORT TRUSTED_PROXIES METRICS_ADDR WORKER_METRICS_ADDR WORKER_HEALTH_ADDR MONGODB_URI MONGODB_DATABASE TEMPORAL_ADDRESS TEMPORAL_NAMESPACE TEMPORAL_TASK_QUEUE TEMPORAL_TLS_CA TEMPORAL_TLS_CERT TEMPORAL_TLS_KEY TEMPORAL_TLS_SERVER_NAME TEMPORAL_API_KEY KEYFLOW_KEK DATA_DIR
{{- end -}}

{{/* The search attributes Keyflow's workflows set (lib/temporal/search-attributes.ts; a test compares). */}}
{{- define "keyflow.searchAttributes" -}}
KeyflowClientId KeyflowUserId KeyflowState
{{- end -}}
