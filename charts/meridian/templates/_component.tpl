{{/*
meridian.agentLike renders an optional component that talks to its own
cluster's API server: a ServiceAccount, a ClusterRole from the
+kubebuilder:rbac markers of its packages (files/rbac/<component>.yaml,
written by make manifests), its binding and a Deployment running
`meridian <component>`.
Call: include "meridian.agentLike" (dict "root" . "component" "agent" "values" .Values.agent)
*/}}
{{/*
meridian.leaderElection renders a Role and its binding in the release's
namespace with the rights of leader election (its Lease and the events that
announce the leader): the components hold no cluster-wide right on Leases
for it.
Call: include "meridian.leaderElection" (dict "root" . "component" "controller")
*/}}
{{- define "meridian.leaderElection" -}}
{{- $name := printf "%s-leader-election" (include "meridian.component" .) }}
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ $name }}
  namespace: {{ .root.Release.Namespace }}
  labels: {{- include "meridian.labels" . | nindent 4 }}
rules:
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [get, create, update]
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ $name }}
  namespace: {{ .root.Release.Namespace }}
  labels: {{- include "meridian.labels" . | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ $name }}
subjects:
- kind: ServiceAccount
  name: {{ include "meridian.component" . }}
  namespace: {{ .root.Release.Namespace }}
{{- end -}}

{{- define "meridian.agentLike" -}}
{{- $name := include "meridian.component" . }}
{{- $rules := .root.Files.Get (printf "files/rbac/%s.yaml" .component) }}
{{- if not $rules }}
{{- fail (printf "%s.enabled: this chart has no RBAC for %s (files/rbac/%s.yaml); run make manifests" .component .component .component) }}
{{- end }}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ $name }}
  namespace: {{ .root.Release.Namespace }}
  labels: {{- include "meridian.labels" . | nindent 4 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ $name }}
  labels: {{- include "meridian.labels" . | nindent 4 }}
rules: {{- ($rules | fromYaml).rules | toYaml | nindent 2 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ $name }}
  labels: {{- include "meridian.labels" . | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: {{ $name }}
subjects:
- kind: ServiceAccount
  name: {{ $name }}
  namespace: {{ .root.Release.Namespace }}
---
{{ include "meridian.leaderElection" . }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $name }}
  namespace: {{ .root.Release.Namespace }}
  labels: {{- include "meridian.labels" . | nindent 4 }}
spec:
  replicas: {{ .values.replicas }}
  selector:
    matchLabels: {{- include "meridian.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels: {{- include "meridian.selectorLabels" . | nindent 8 }}
    spec:
      {{- include "meridian.podSpec" . | nindent 6 }}
      containers:
      - name: {{ .component }}
        image: {{ include "meridian.image" .root }}
        imagePullPolicy: {{ .root.Values.image.pullPolicy }}
        args:
        - {{ .component }}
        - --namespace={{ .root.Release.Namespace }}
        - --leader-elect={{ gt (int .values.replicas) 1 }}
        - --metrics-bind-address=:{{ .root.Values.metrics.port }}
        - --health-probe-bind-address=:8081
        {{- with .values.kubeletPort }}
        - --kubelet-bind-address=:{{ . }}
        - --kubelet-address=$(POD_IP)
        {{- end }}
        {{- with .values.extraArgs }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
        {{- if .values.kubeletPort }}
        env:
        - name: POD_IP
          valueFrom: {fieldRef: {fieldPath: status.podIP}}
        {{- end }}
        ports:
        - {name: metrics, containerPort: {{ .root.Values.metrics.port }}}
        - {name: health, containerPort: 8081}
        {{- with .values.kubeletPort }}
        - {name: kubelet, containerPort: {{ . }}}
        {{- end }}
        {{- include "meridian.probes" . | nindent 8 }}
        resources: {{- toYaml .values.resources | nindent 10 }}
        securityContext: {{- toYaml .root.Values.securityContext | nindent 10 }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ $name }}-metrics
  namespace: {{ .root.Release.Namespace }}
  labels: {{- include "meridian.labels" . | nindent 4 }}
spec:
  selector: {{- include "meridian.selectorLabels" . | nindent 4 }}
  ports:
  - {name: metrics, port: {{ .root.Values.metrics.port }}, targetPort: metrics}
{{- end -}}
